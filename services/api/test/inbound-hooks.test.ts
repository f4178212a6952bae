import { createHmac } from 'node:crypto';
import { createApp } from '@weft/api';
import { createApiKey } from '@weft/domain';
import { createTemporalEngine } from '@weft/temporal/temporal-engine';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson, waitForRoomInMinute } from './helpers';

// Inbound hooks end to end: real PostgreSQL, a Temporal dev server, the worker and the API app.

let h: EngineHarness;
let org: { organizationId: string; key: string };

const greet = {
  id: 'greet',
  type: 'action.transform',
  config: { assignments: [{ key: 'message', value: 'Hello {{trigger.name}}' }] },
};

async function createWorkflow(body: Record<string, unknown>, key = org.key) {
  const res = await h.request('POST', '/api/v1/workflows', {
    key,
    body: { name: 'Hooked', status: 'active', nodes: [greet], ...body },
  });
  const json = await readJson(res);
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json as { id: string; webhook_url?: string; trigger_type: string };
}

const hookPath = (webhookUrl: string) => new URL(webhookUrl).pathname;

/** POST to a hook with exact bytes (the signature covers them) and optional headers. */
function postHook(
  path: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  app: { request: EngineHarness['app']['request'] } = h.app,
) {
  return Promise.resolve(
    app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: body as RequestInit['body'],
    }),
  );
}

async function executionRow(id: string) {
  const [row] = await h.db.admin`
    select workflow_id, trigger, event, trigger_payload from executions where id = ${id}`;
  return row;
}

beforeAll(async () => {
  h = await createEngineHarness();
  org = await h.createOrg('Hooks');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('webhook workflows get a hook URL', () => {
  it('shows webhook_url on create, get and update, only for webhook workflows', async () => {
    const created = await createWorkflow({ trigger_type: 'webhook' });
    expect(created.webhook_url).toMatch(/^http:\/\/localhost:3000\/api\/hooks\/[A-Za-z0-9_-]{43}$/);

    const got = await readJson(await h.request('GET', `/api/v1/workflows/${created.id}`, { key: org.key }));
    expect(got.webhook_url).toBe(created.webhook_url);

    const updated = await readJson(
      await h.request('PUT', `/api/v1/workflows/${created.id}`, {
        key: org.key,
        body: { name: 'Renamed', trigger_type: 'webhook', status: 'active', nodes: [greet] },
      }),
    );
    expect(updated.webhook_url).toBe(created.webhook_url); // edits keep the URL

    const event = await createWorkflow({ trigger_type: 'event', trigger_config: { event: 'lead.created' } });
    expect(event).not.toHaveProperty('webhook_url');
  });

  it('switching away from webhook drops the token: the old URL is 404; switching back makes a new one', async () => {
    const created = await createWorkflow({ trigger_type: 'webhook' });
    const toManual = await h.request('PUT', `/api/v1/workflows/${created.id}`, {
      key: org.key,
      body: { name: 'Manual now', trigger_type: 'manual', status: 'active', nodes: [greet] },
    });
    expect(await readJson(toManual)).not.toHaveProperty('webhook_url');
    await expectError(await postHook(hookPath(created.webhook_url as string), '{}'), 404, 'not_found');

    const back = await readJson(
      await h.request('PUT', `/api/v1/workflows/${created.id}`, {
        key: org.key,
        body: { name: 'Hooked again', trigger_type: 'trigger.webhook', status: 'active', nodes: [greet] },
      }),
    );
    expect(back.webhook_url).toMatch(/\/api\/hooks\//);
    expect(back.webhook_url).not.toBe(created.webhook_url);
  });

  it('answers webhook_url only to keys that may execute or update the workflow (it is a capability)', async () => {
    const created = await createWorkflow({ trigger_type: 'webhook' });
    const get = async (permissions: ('workflows.view' | 'workflows.execute' | 'workflows.update')[]) => {
      const { key } = await createApiKey({
        ctx: { db: h.db.app.db, organizationId: org.organizationId, actor: {} },
        input: { name: permissions.join(' '), permissions },
      });
      return readJson(await h.request('GET', `/api/v1/workflows/${created.id}`, { key }));
    };
    expect(await get(['workflows.view'])).not.toHaveProperty('webhook_url');
    expect((await get(['workflows.view', 'workflows.execute'])).webhook_url).toBe(created.webhook_url);
    expect((await get(['workflows.view', 'workflows.update'])).webhook_url).toBe(created.webhook_url);
  });

  it('the audit trail never holds the token', async () => {
    const created = await createWorkflow({ trigger_type: 'webhook' });
    const token = hookPath(created.webhook_url as string)
      .split('/')
      .pop() as string;
    const [row] = await h.db.admin`
      select count(*)::int as n from audit_logs
       where entity_id = ${created.id} and (old_values::text like ${`%${token}%`} or new_values::text like ${`%${token}%`})`;
    expect(row?.n).toBe(0);
  });
});

describe('POST /api/hooks/<token>', () => {
  it('answers 202 with the execution id; the body is the trigger, trigger webhook, event webhook.received', async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook' });
    const res = await postHook(hookPath(hooked.webhook_url as string), JSON.stringify({ name: 'Ada', n: 1 }));
    const body = await readJson(res);
    expect(res.status, JSON.stringify(body)).toBe(202);
    expect(body.workflow_id).toBe(hooked.id);
    expect(body.execution_ids).toHaveLength(1);
    const [executionId] = body.execution_ids as string[];

    const row = await executionRow(executionId as string);
    expect(row).toMatchObject({
      workflow_id: hooked.id,
      trigger: 'webhook',
      event: 'webhook.received',
      trigger_payload: { name: 'Ada', n: 1 },
    });
    const execution = await h.waitForExecution(org.key, executionId as string);
    expect(execution.status).toBe('success');
    expect(execution.trigger).toBe('webhook');
    expect(execution.steps[0].output).toEqual({ message: 'Hello Ada' });
  });

  it('fires webhook.received to event workflows too, and starts the hooked workflow once', async () => {
    const other = await h.createOrg('Hooks listener');
    const hooked = await createWorkflow({ trigger_type: 'webhook' }, other.key);
    const listener = await createWorkflow(
      { trigger_type: 'event', trigger_config: { event: 'webhook.received' } },
      other.key,
    );
    const byCategory = await createWorkflow(
      { trigger_type: 'event', trigger_config: { event: 'webhook.*' } },
      other.key,
    );
    const res = await postHook(hookPath(hooked.webhook_url as string), JSON.stringify({ name: 'Grace' }));
    const body = await readJson(res);
    expect(res.status).toBe(202);
    expect(body.execution_ids).toHaveLength(3);

    const rows = await Promise.all((body.execution_ids as string[]).map(executionRow));
    // The hooked workflow's execution comes first.
    expect(rows[0]).toMatchObject({ workflow_id: hooked.id, trigger: 'webhook' });
    expect(
      rows
        .slice(1)
        .map((r) => r?.workflow_id)
        .sort(),
    ).toEqual([listener.id, byCategory.id].sort());
    for (const row of rows.slice(1)) {
      expect(row).toMatchObject({
        trigger: 'event',
        event: 'webhook.received',
        trigger_payload: { name: 'Grace' },
      });
    }
    const [count] = await h.db.admin`
      select count(*)::int as n from executions where workflow_id = ${hooked.id}`;
    expect(count?.n).toBe(1);
    for (const id of body.execution_ids as string[]) {
      expect((await h.waitForExecution(other.key, id)).status).toBe('success');
    }
  });

  it('takes no API key and ignores one (the token is the credential)', async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook' });
    const res = await postHook(hookPath(hooked.webhook_url as string), '{}', { 'x-api-key': 'weft_wrong' });
    expect(res.status).toBe(202);
  });

  it('regenerating the token: the old URL is 404 at once, the new one works; audit logged', async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook' });
    const res = await h.request('POST', `/api/v1/workflows/${hooked.id}/webhook-token/regenerate`, {
      key: org.key,
    });
    const regenerated = await readJson(res);
    expect(res.status, JSON.stringify(regenerated)).toBe(200);
    expect(regenerated.webhook_url).toMatch(/\/api\/hooks\/[A-Za-z0-9_-]{43}$/);
    expect(regenerated.webhook_url).not.toBe(hooked.webhook_url);

    await expectError(await postHook(hookPath(hooked.webhook_url as string), '{}'), 404, 'not_found');
    expect((await postHook(hookPath(regenerated.webhook_url), '{}')).status).toBe(202);

    const [audit] = await h.db.admin`
      select action, new_values from audit_logs where entity_id = ${hooked.id} order by created_at desc limit 1`;
    expect(audit?.action).toBe('updated');
    expect(JSON.stringify(audit?.new_values)).toMatch(/webhook_token/);
  });

  it('regenerate: 409 for a non-webhook workflow, 404 for another organization, 403 without workflows.update', async () => {
    const manual = await createWorkflow({ trigger_type: 'manual' });
    const path = (id: string) => `/api/v1/workflows/${id}/webhook-token/regenerate`;
    await expectError(await h.request('POST', path(manual.id), { key: org.key }), 409, 'conflict');

    const hooked = await createWorkflow({ trigger_type: 'webhook' });
    const stranger = await h.createOrg('Stranger');
    await expectError(await h.request('POST', path(hooked.id), { key: stranger.key }), 404, 'not_found');

    const readOnly = await createApiKey({
      ctx: { db: h.db.app.db, organizationId: org.organizationId, actor: {} },
      input: { name: 'read only', permissions: ['workflows.view'] },
    });
    await expectError(await h.request('POST', path(hooked.id), { key: readOnly.key }), 403, 'forbidden');
  });

  it('unknown or malformed token: 404 in the error envelope', async () => {
    await expectError(await postHook(`/api/hooks/${'A'.repeat(43)}`, '{}'), 404, 'not_found');
    await expectError(await postHook('/api/hooks/short', '{}'), 404, 'not_found');
  });

  it('an inactive or draft workflow: 409 conflict, nothing recorded', async () => {
    for (const status of ['inactive', 'draft']) {
      const hooked = await createWorkflow({ trigger_type: 'webhook', status });
      const body = await expectError(
        await postHook(hookPath(hooked.webhook_url as string), '{}'),
        409,
        'conflict',
      );
      expect(body.error.message).toContain(status);
      const [count] = await h.db
        .admin`select count(*)::int as n from executions where workflow_id = ${hooked.id}`;
      expect(count?.n).toBe(0);
    }
  });

  it('bad bodies: malformed JSON 422, non-object JSON 422, invalid UTF-8 422, NUL 422; empty body is {}', async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook' });
    const path = hookPath(hooked.webhook_url as string);
    const malformed = await expectError(await postHook(path, '{"name": '), 422, 'validation_error');
    expect(malformed.error.fields).toHaveProperty('body');
    for (const nonObject of ['[1,2]', '"text"', '42', 'null']) {
      const body = await expectError(await postHook(path, nonObject), 422, 'validation_error');
      expect(body.error.fields.body).toEqual(['must be a JSON object']);
    }
    await expectError(await postHook(path, new Uint8Array([0x7b, 0xff, 0x7d])), 422, 'validation_error');
    await expectError(await postHook(path, '{"a": "x\\u0000y"}'), 422, 'validation_error');
    const [before] = await h.db
      .admin`select count(*)::int as n from executions where workflow_id = ${hooked.id}`;
    expect(before?.n).toBe(0);

    const empty = await postHook(path, '');
    expect(empty.status).toBe(202);
    const [id] = (await readJson(empty)).execution_ids;
    expect((await executionRow(id))?.trigger_payload).toEqual({});
  });

  it('a body over MAX_BODY_BYTES: 413 payload_too_large', async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook' });
    const big = JSON.stringify({ blob: 'x'.repeat(1024 * 1024) });
    await expectError(await postHook(hookPath(hooked.webhook_url as string), big), 413, 'payload_too_large');
  });
});

describe('HMAC verification when trigger_config.secret is set', () => {
  const secret = 'whsec_test_secret_0123456789';
  const hex = (body: string) => createHmac('sha256', secret).update(body).digest('hex');
  const standard = (id: string, ts: number, body: string) =>
    `v1,${createHmac('sha256', secret).update(`${id}.${ts}.${body}`).digest('base64')}`;
  let path: string;

  beforeAll(async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook', trigger_config: { secret } });
    path = hookPath(hooked.webhook_url as string);
  });

  it('accepts a good X-Webhook-Signature over the exact bytes (also with sha256= prefix)', async () => {
    const body = '{"name":  "Signed"}'; // odd spacing: a re-serialized body would not match
    expect((await postHook(path, body, { 'x-webhook-signature': hex(body) })).status).toBe(202);
    // Another body: the same one again would be a replay (inbound-hook-repeats.test.ts).
    const other = '{"name":  "Signed", "n": 2}';
    expect((await postHook(path, other, { 'x-webhook-signature': `sha256=${hex(other)}` })).status).toBe(202);
  });

  it('accepts a good Standard Webhooks signature with a fresh timestamp', async () => {
    const body = '{"name":"Standard"}';
    const ts = Math.floor(Date.now() / 1000);
    const res = await postHook(path, body, {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': standard('msg_1', ts, body),
    });
    expect(res.status).toBe(202);
  });

  it('401 for a missing, wrong or replayed signature, and nothing is recorded', async () => {
    const body = '{"name":"Forged"}';
    const old = Math.floor(Date.now() / 1000) - 3600;
    const attempts: Record<string, string>[] = [
      {},
      { 'x-webhook-signature': hex('{"name":"other"}') },
      { 'x-webhook-signature': 'zz' },
      {
        'webhook-id': 'msg_2',
        'webhook-timestamp': String(old),
        'webhook-signature': standard('msg_2', old, body),
      },
    ];
    for (const headers of attempts) {
      const res = await postHook(path, body, headers);
      await expectError(res, 401, 'unauthenticated');
    }
    const [row] = await h.db.admin`
      select count(*)::int as n from executions where trigger_payload->>'name' = 'Forged'`;
    expect(row?.n).toBe(0);
  });
});

describe('the hook secret is kept encrypted and answered masked', () => {
  const secret = 'whsec_masked_secret_AbCd9876';
  const sign = (body: string, key = secret) => createHmac('sha256', key).update(body).digest('hex');

  it('never answers or stores it in clear; a masked value sent back keeps it; a new one replaces it', async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook', trigger_config: { secret } });
    const read = async () =>
      readJson(await h.request('GET', `/api/v1/workflows/${hooked.id}`, { key: org.key }));
    const got = await read();
    expect(got.trigger_config).toEqual({ secret: '••••9876' });
    const [row] = await h.db.admin`select trigger_config from workflows where id = ${hooked.id}`;
    expect(JSON.stringify(row)).not.toContain('masked_secret');
    const audit = await h.db
      .admin`select old_values, new_values from audit_logs where entity_id = ${hooked.id}`;
    expect(JSON.stringify(audit)).not.toContain('masked_secret');

    const path = hookPath(hooked.webhook_url as string);
    // A new body for every accepted request: a body signed only by X-Webhook-Signature is taken once.
    let sent = 0;
    const nextBody = () => JSON.stringify({ name: 'Kept', n: ++sent });
    const first = nextBody();
    expect((await postHook(path, first, { 'x-webhook-signature': sign(first) })).status).toBe(202);

    // The editor's round trip: GET, change the name, PUT with the masked secret as it came.
    const { id: _id, created_at: _c, updated_at: _u, version: _v, webhook_url: _w, ...editable } = got;
    const kept = await h.request('PUT', `/api/v1/workflows/${hooked.id}`, {
      key: org.key,
      body: { ...editable, name: 'Renamed hook' },
    });
    expect(kept.status).toBe(200);
    const afterEdit = nextBody();
    expect((await postHook(path, afterEdit, { 'x-webhook-signature': sign(afterEdit) })).status).toBe(202);

    const next = 'whsec_replacement_secret_1111';
    const replaced = await h.request('PUT', `/api/v1/workflows/${hooked.id}`, {
      key: org.key,
      body: { ...editable, trigger_config: { secret: next } },
    });
    expect((await readJson(replaced)).trigger_config).toEqual({ secret: '••••1111' });
    const body = nextBody();
    await expectError(await postHook(path, body, { 'x-webhook-signature': sign(body) }), 401);
    expect((await postHook(path, body, { 'x-webhook-signature': sign(body, next) })).status).toBe(202);
  });

  it('refuses a masked value that matches no stored secret (422), e.g. on create', async () => {
    const res = await h.request('POST', '/api/v1/workflows', {
      key: org.key,
      body: {
        name: 'Masked',
        status: 'active',
        nodes: [greet],
        trigger_type: 'webhook',
        trigger_config: { secret: '••••9876' },
      },
    });
    const error = await expectError(res, 422, 'validation_error');
    expect(error.error.fields).toHaveProperty(['trigger_config.secret']);
  });

  it('still verifies with a secret saved in clear before encryption, and masks it in answers', async () => {
    const hooked = await createWorkflow({ trigger_type: 'webhook' });
    const legacy = 'whsec_saved_in_clear_before_2222';
    await h.db
      .admin`update workflows set trigger_config = ${h.db.admin.json({ secret: legacy })} where id = ${hooked.id}`;
    const got = readJson(await h.request('GET', `/api/v1/workflows/${hooked.id}`, { key: org.key }));
    expect((await got).trigger_config).toEqual({ secret: '••••2222' });
    const body = '{"name":"Legacy"}';
    const path = hookPath(hooked.webhook_url as string);
    expect((await postHook(path, body, { 'x-webhook-signature': sign(body, legacy) })).status).toBe(202);
  });
});

describe('rate limit per hook (HOOK_RATE_LIMIT: 3)', () => {
  it('the 4th request in a minute is 429 with Retry-After; another hook is unaffected', async () => {
    const limited = createApp({
      db: h.db.app.db,
      env: {
        APP_URL: 'http://localhost:3000',
        MAX_BODY_BYTES: 1024 * 1024,
        RATE_LIMIT_PER_KEY: 1000,
        RATE_LIMIT_PER_ORG: 1000,
        TRUST_PROXY_HOPS: 0,
        HOOK_RATE_LIMIT: 3,
      },
      temporalReady: async () => true,
      engine: createTemporalEngine({ client: h.client, taskQueue: h.taskQueue }),
      logError: (error) => console.error(error),
    });
    const first = hookPath((await createWorkflow({ trigger_type: 'webhook' })).webhook_url as string);
    const second = hookPath((await createWorkflow({ trigger_type: 'webhook' })).webhook_url as string);
    // Room in the window for these requests (three start runs through Temporal): generous, a busy
    // machine is slow. The wait for it is why this test has a longer timeout.
    await waitForRoomInMinute(h.db.admin, 20);
    for (let i = 0; i < 3; i++) expect((await postHook(first, '{}', {}, limited)).status).toBe(202);
    const res = await postHook(first, '{}', {}, limited);
    await expectError(res, 429, 'rate_limited');
    const retryAfter = Number(res.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await postHook(second, '{}', {}, limited)).status).toBe(202);
  }, 60_000);
});
