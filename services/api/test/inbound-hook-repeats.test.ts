import { createHmac } from 'node:crypto';
import { createApp } from '@weft/api';
import { withTenant } from '@weft/db';
import { generateWebhookSecret, pruneHookReceipts, signWebhook } from '@weft/domain';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

// Repeated and replayed inbound hook requests (hook_receipts): a sender's retry with the same
// webhook-id starts nothing and gets the first answer; a replayed body-only X-Webhook-Signature is
// refused. Real PostgreSQL, Temporal dev server, worker and API app.

let h: EngineHarness;
let org: { organizationId: string; key: string };

const greet = {
  id: 'greet',
  type: 'action.transform',
  config: { assignments: [{ key: 'ok', value: 'yes' }] },
};

async function createHook(triggerConfig: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: {
      name: 'Hooked',
      status: 'active',
      nodes: [greet],
      trigger_type: 'webhook',
      trigger_config: triggerConfig,
    },
  });
  const json = await readJson(res);
  expect(res.status, JSON.stringify(json)).toBe(201);
  return { id: json.id as string, path: new URL(json.webhook_url).pathname };
}

const postHook = (path: string, body: string, headers: Record<string, string> = {}) =>
  Promise.resolve(
    h.app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }),
  );

async function executionCount(workflowId: string): Promise<number> {
  const [row] = await h.db.admin`select count(*)::int as n from executions where workflow_id = ${workflowId}`;
  return row?.n as number;
}

/** The Standard Webhooks trio as a sender signs it now (Weft's signer is the official library). */
function standardHeaders(secret: string, messageId: string, body: string) {
  const signed = signWebhook(secret, messageId, Math.floor(Date.now() / 1000), body);
  return {
    'webhook-id': signed['webhook-id'],
    'webhook-timestamp': signed['webhook-timestamp'],
    'webhook-signature': signed['webhook-signature'],
  };
}

beforeAll(async () => {
  h = await createEngineHarness();
  org = await h.createOrg('Hook repeats');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('a repeated webhook-id (a sender retrying)', () => {
  it('is answered 202 with the first execution ids and starts nothing, even with a new timestamp', async () => {
    const secret = generateWebhookSecret();
    const hook = await createHook({ secret });
    const body = '{"order":1}';
    const first = await postHook(hook.path, body, standardHeaders(secret, 'msg_retry', body));
    const firstJson = await readJson(first);
    expect(first.status, JSON.stringify(firstJson)).toBe(202);
    expect(firstJson.execution_ids).toHaveLength(1);

    await new Promise((r) => setTimeout(r, 1100)); // the retry is signed a second later
    const retry = await postHook(hook.path, body, standardHeaders(secret, 'msg_retry', body));
    expect(retry.status).toBe(202);
    expect(await readJson(retry)).toEqual(firstJson);
    expect(await executionCount(hook.id)).toBe(1);

    // Another message id is another request.
    const next = await postHook(hook.path, body, standardHeaders(secret, 'msg_next', body));
    expect(next.status).toBe(202);
    expect(await executionCount(hook.id)).toBe(2);
  });

  it('two copies racing each other start one execution; both get its id', async () => {
    const hook = await createHook(); // no secret: webhook-id is honoured on unsigned hooks too
    const send = () => postHook(hook.path, '{"race":true}', { 'webhook-id': 'msg_twin' });
    const answers = await Promise.all([send(), send(), send()]);
    const bodies = await Promise.all(answers.map(readJson));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    expect(new Set(bodies.map((b) => JSON.stringify(b.execution_ids))).size).toBe(1);
    expect(bodies[0].execution_ids).toHaveLength(1);
    expect(await executionCount(hook.id)).toBe(1);
  });

  it('keeps the first answer after the workflow is switched off; a new id then gets the 409', async () => {
    const hook = await createHook();
    const first = await readJson(await postHook(hook.path, '{}', { 'webhook-id': 'msg_before_off' }));
    await h.db.admin`update workflows set status = 'inactive' where id = ${hook.id}`;
    const retry = await postHook(hook.path, '{}', { 'webhook-id': 'msg_before_off' });
    expect(retry.status).toBe(202);
    expect(await readJson(retry)).toEqual(first);
    await expectError(await postHook(hook.path, '{}', { 'webhook-id': 'msg_after_off' }), 409, 'conflict');
  });

  it('a first request that failed to start (500) releases its receipt: the retry runs', async () => {
    const hook = await createHook();
    // The same database, but no execution engine: every start is refused, as when Temporal is down.
    const broken = createApp({
      db: h.db.app.db,
      env: {
        APP_URL: 'http://localhost:3000',
        MAX_BODY_BYTES: 1024 * 1024,
        RATE_LIMIT_PER_KEY: 1000,
        RATE_LIMIT_PER_ORG: 1000,
        TRUST_PROXY_HOPS: 0,
      },
      temporalReady: async () => false,
      logError: () => {},
    });
    const send = (app: { request: EngineHarness['app']['request'] }) =>
      Promise.resolve(
        app.request(hook.path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'webhook-id': 'msg_down' },
          body: '{}',
        }),
      );
    expect((await send(broken)).status).toBe(500);
    const [left] = await h.db
      .admin`select count(*)::int as n from hook_receipts where workflow_id = ${hook.id}`;
    expect(left?.n).toBe(0);
    const retry = await send(h.app);
    expect(retry.status).toBe(202);
    const [started] = (await readJson(retry)).execution_ids as string[];
    expect((await h.waitForExecution(org.key, started as string)).status).toBe('success');
  });

  it('a refused first request records nothing: its retry is judged afresh', async () => {
    const hook = await createHook();
    await expectError(await postHook(hook.path, '[1]', { 'webhook-id': 'msg_bad' }), 422, 'validation_error');
    expect((await postHook(hook.path, '{}', { 'webhook-id': 'msg_bad' })).status).toBe(202);
  });
});

describe('a replayed X-Webhook-Signature (body-only, no timestamp)', () => {
  const secret = 'my-own-hook-secret-42'; // a secret the user chose: its UTF-8 bytes are the key
  const hex = (body: string) => createHmac('sha256', secret).update(body).digest('hex');

  it('is refused with 409 conflict and starts nothing; a different body is accepted', async () => {
    const hook = await createHook({ secret });
    const body = '{"event":"paid","id":"evt_1"}';
    expect((await postHook(hook.path, body, { 'x-webhook-signature': hex(body) })).status).toBe(202);

    const replay = await expectError(
      await postHook(hook.path, body, { 'x-webhook-signature': `sha256=${hex(body)}` }),
      409,
      'conflict',
    );
    expect(replay.error.message).toMatch(/already received/);
    expect(replay.error.fields).toHaveProperty(['X-Webhook-Signature']);
    expect(await executionCount(hook.id)).toBe(1);

    const other = '{"event":"paid","id":"evt_2"}';
    expect((await postHook(hook.path, other, { 'x-webhook-signature': hex(other) })).status).toBe(202);
    expect(await executionCount(hook.id)).toBe(2);
  });

  it('the same body on another hook is another request', async () => {
    const body = '{"shared":true}';
    for (const hook of [await createHook({ secret }), await createHook({ secret })]) {
      expect((await postHook(hook.path, body, { 'x-webhook-signature': hex(body) })).status).toBe(202);
    }
  });

  it('is accepted again once its receipt is older than the window, and old receipts are pruned', async () => {
    const hook = await createHook({ secret });
    const body = '{"late":true}';
    expect((await postHook(hook.path, body, { 'x-webhook-signature': hex(body) })).status).toBe(202);
    await h.db.admin`
      update hook_receipts set received_at = now() - interval '73 hours' where workflow_id = ${hook.id}`;
    // Not pruned yet: an expired receipt is taken over, not obeyed.
    expect((await postHook(hook.path, body, { 'x-webhook-signature': hex(body) })).status).toBe(202);
    expect(await executionCount(hook.id)).toBe(2);

    await h.db.admin`
      update hook_receipts set received_at = now() - interval '73 hours' where workflow_id = ${hook.id}`;
    const fresh = await createHook();
    await postHook(fresh.path, '{}', { 'webhook-id': 'msg_fresh' });
    expect(await pruneHookReceipts(h.db.app.db)).toBeGreaterThanOrEqual(1);
    const rows = await h.db
      .admin`select workflow_id from hook_receipts where workflow_id in ${h.db.admin([hook.id, fresh.id])}`;
    expect(rows.map((r) => r.workflow_id)).toEqual([fresh.id]);
  });

  it('receipts hold hashes only, and stay inside their organization', async () => {
    const hook = await createHook({ secret });
    const body = '{"private":"value"}';
    await postHook(hook.path, body, { 'x-webhook-signature': hex(body) });
    const [row] = await h.db
      .admin`select organization_id, key_hash from hook_receipts where workflow_id = ${hook.id}`;
    expect(row?.organization_id).toBe(org.organizationId);
    expect(row?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.key_hash).not.toBe(hex(body));
    // Another organization's tenancy transaction sees none of them.
    const other = await h.createOrg('Other receipts');
    const count = (organizationId: string) =>
      withTenant(h.db.app.db, organizationId, (tx) =>
        tx.execute<{ n: number }>('select count(*)::int as n from hook_receipts'),
      );
    expect((await count(org.organizationId))[0]?.n).toBeGreaterThan(0);
    expect((await count(other.organizationId))[0]?.n).toBe(0);
  });
});
