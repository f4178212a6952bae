import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createWorkflow, sweepUnstartedDeliveries, WorkflowInput } from '@weft/domain';
import { createTemporalEngine } from '@weft/temporal/temporal-engine';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Short retries so a six-attempt delivery takes about a second (production: 10 s doubling to 1 h). */
const RETRY = { initialIntervalMs: 100, maximumIntervalMs: 300 };

interface Received {
  path: string;
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Checked by the test's own HMAC code, not by Weft's signing module. */
  signatureValid: boolean;
}

let h: EngineHarness;
let server: Server;
let baseUrl: string;
const received: Received[] = [];
/** Per path: the answers to give, in order; the last one repeats. */
const script: Record<string, { status: number; headers?: Record<string, string> }[]> = {};
const secrets: Record<string, string> = {};

/**
 * Independent verification, as a receiver would write it: `X-Webhook-Signature` keyed with the
 * secret string as shown, and the Standard Webhooks form keyed with the decoded bytes (the secrets
 * here are generated, `whsec_` + padded base64, for which that is the Standard Webhooks rule).
 */
function verify(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const given = Buffer.from(String(headers['x-webhook-signature'] ?? ''));
  const hexOk = given.length === hex.length && timingSafeEqual(given, Buffer.from(hex));
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
  return hexOk && headers['webhook-signature'] === expected && fresh && headers['x-webhook-id'] === id;
}

const deliveriesTo = (path: string) => received.filter((r) => r.path === path);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves once the delivery's workflow has ended: no further attempt of it can follow. */
const deliveryEnded = (deliveryId: string) => h.client.workflow.getHandle(`delivery-${deliveryId}`).result();

async function newOrgWithWebhook(path: string, events: string[]) {
  const org = await h.createOrg(`Org ${path}`);
  const res = await h.request('POST', '/api/v1/webhooks', {
    key: org.key,
    body: { url: `${baseUrl}${path}`, events },
  });
  const webhook = (await res.json()) as any;
  expect(res.status, JSON.stringify(webhook)).toBe(201);
  secrets[path] = webhook.secret;
  return { ...org, webhookId: webhook.id as string };
}

async function deliveries(key: string, webhookId: string): Promise<any[]> {
  const res = await h.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { key });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
}

/** Polls the delivery log until `done` holds for the newest delivery. */
async function waitForDelivery(
  key: string,
  webhookId: string,
  done: (d: any) => boolean,
  // As long as a test's own timeout: deliveries run through Temporal, slow on a busy machine.
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  let last: any[] = [];
  while (Date.now() < deadline) {
    last = await deliveries(key, webhookId);
    if (last[0] && done(last[0])) return last[0];
    await sleep(100);
  }
  throw new Error(`delivery did not settle: ${JSON.stringify(last)}`);
}

async function createAndExecute(key: string, nodes: unknown[], edges: unknown[] = []) {
  const created = await h.request('POST', '/api/v1/workflows', {
    key,
    body: { name: 'Notify', trigger_type: 'manual', status: 'active', nodes, edges },
  });
  const workflow = (await created.json()) as any;
  expect(created.status, JSON.stringify(workflow)).toBe(201);
  const res = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, {
    key,
    body: { input: { n: 1 } },
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as any).execution_id as string;
}

/** Triggers one workflow.created delivery in the organization. */
async function createAnyWorkflow(key: string) {
  const res = await h.request('POST', '/api/v1/workflows', {
    key,
    body: { name: 'Anything', trigger_type: 'manual', nodes: [], edges: [] },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).id as string;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = secrets[path] ?? '';
      received.push({
        path,
        at: Date.now(),
        headers: req.headers,
        body,
        signatureValid: verify(secret, req.headers, body),
      });
      const answers = script[path] ?? [{ status: 200 }];
      const answer =
        answers.length > 1 ? (answers.shift() ?? { status: 200 }) : (answers[0] ?? { status: 200 });
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.1/32'], deliveryRetry: RETRY });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('outbound webhook deliveries', () => {
  it('sends exactly one signed execution.completed delivery when an execution succeeds', async () => {
    const org = await newOrgWithWebhook('/completed', ['execution.completed', 'execution.failed']);
    const executionId = await createAndExecute(org.key, [
      {
        id: 'shape',
        type: 'action.transform',
        config: { assignments: [{ key: 'secret_output', value: 'x' }] },
      },
    ]);
    await h.waitForExecution(org.key, executionId);
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.status === 'succeeded');
    // A duplicate would have shown up by the time the execution's workflow and the delivery's ended.
    await h.waitForResult(executionId);
    await deliveryEnded(delivery.id);

    const got = deliveriesTo('/completed');
    expect(got).toHaveLength(1);
    const [request] = got;
    expect(request?.signatureValid).toBe(true);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Weft-Webhooks/1',
      'x-webhook-event': 'execution.completed',
      'x-webhook-id': delivery.id,
      'webhook-id': delivery.id,
    });
    const body = JSON.parse(request?.body ?? '{}');
    expect(Object.keys(body)).toEqual(['id', 'event', 'created_at', 'data']);
    expect(body).toMatchObject({
      id: delivery.id,
      event: 'execution.completed',
      created_at: delivery.created_at,
    });
    expect(body.data.execution).toMatchObject({
      id: executionId,
      status: 'success',
      trigger: 'api',
      attempt: 1,
    });
    expect(body.data.execution.steps).toHaveLength(1);
    expect(body.data.execution.steps[0]).toMatchObject({ node_id: 'shape', status: 'completed' });
    expect(body.data.execution.steps[0]).not.toHaveProperty('output');
    expect(request?.body).not.toContain('secret_output');

    expect(delivery).toMatchObject({
      event: 'execution.completed',
      attempt_count: 1,
      last_status_code: 200,
      next_retry_at: null,
    });
    expect(delivery.delivered_at).not.toBeNull();
    expect(delivery.attempts).toEqual([
      {
        attempt: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        status_code: 200,
        error: null,
      },
    ]);
    expect(await deliveries(org.key, org.webhookId)).toHaveLength(1);
  });

  it('sends execution.failed when an execution fails', async () => {
    const org = await newOrgWithWebhook('/failed', ['execution.failed', 'execution.completed']);
    script['/boom'] = [{ status: 404 }];
    const executionId = await createAndExecute(org.key, [
      {
        id: 'call',
        type: 'action.http_request',
        on_failure: 'abort',
        config: { url: `${baseUrl}/boom`, method: 'GET' },
      },
    ]);
    await h.waitForExecution(org.key, executionId, (e) => e.status === 'failed');
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.status === 'succeeded');
    expect(delivery.event).toBe('execution.failed');
    const got = deliveriesTo('/failed');
    expect(got).toHaveLength(1);
    expect(got[0]?.signatureValid).toBe(true);
    const body = JSON.parse(got[0]?.body ?? '{}');
    expect(body.data.execution).toMatchObject({ id: executionId, status: 'failed' });
    expect(body.data.execution.error).toMatchObject({ code: expect.any(String) });
  });

  it('sends execution.partial for a failed step that continues, and execution.waiting for a pause', async () => {
    const org = await newOrgWithWebhook('/partial', [
      'execution.partial',
      'execution.waiting',
      'execution.completed',
    ]);
    script['/boom'] = [{ status: 404 }];
    const executionId = await createAndExecute(
      org.key,
      [
        { id: 'pause', type: 'action.delay', config: { duration: '1s' } },
        { id: 'call', type: 'action.http_request', config: { url: `${baseUrl}/boom`, method: 'GET' } },
      ],
      [{ source: 'pause', target: 'call' }],
    );
    await h.waitForExecution(org.key, executionId, (e) => e.status === 'partial');
    await waitForDelivery(
      org.key,
      org.webhookId,
      (d) => d.event === 'execution.partial' && d.status === 'succeeded',
    );
    // Every delivery the run made (recorded by the time its workflow ended) has ended too.
    await h.waitForResult(executionId);
    await Promise.all((await deliveries(org.key, org.webhookId)).map((d) => deliveryEnded(d.id)));
    const events = deliveriesTo('/partial').map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.event).sort()).toEqual(['execution.partial', 'execution.waiting']);
    const waiting = events.find((e) => e.event === 'execution.waiting');
    expect(waiting.data.execution).toMatchObject({ id: executionId, status: 'waiting' });
    expect(deliveriesTo('/partial').every((r) => r.signatureValid)).toBe(true);
  });

  it('retries a receiver that answers 500 five times, then delivers once more with a valid signature', async () => {
    const org = await newOrgWithWebhook('/flaky', ['workflow.created']);
    script['/flaky'] = [
      { status: 500 },
      { status: 500 },
      { status: 502 },
      { status: 503 },
      { status: 500 },
      { status: 200 },
    ];
    await createAnyWorkflow(org.key);
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.status === 'succeeded');
    await deliveryEnded(delivery.id);

    const got = deliveriesTo('/flaky');
    expect(got).toHaveLength(6);
    // The same delivery id on every attempt, so a receiver can drop duplicates; each one signed.
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    expect(got.every((r) => r.signatureValid)).toBe(true);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(delivery.attempt_count).toBe(6);
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([500, 500, 502, 503, 500, 200]);
    expect(delivery.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(delivery.attempts[0].error).toBe('HTTP 500');
    expect(delivery.last_status_code).toBe(200);
    expect(delivery.next_retry_at).toBeNull();
  });

  it('retries a receiver that is down, and delivers once it is up', async () => {
    // A port with nobody listening: connection refused is a network error, which is retried.
    const down = createServer();
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const address = down.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await new Promise<void>((r) => down.close(() => r()));

    const org = await h.createOrg('Down');
    const res = await h.request('POST', '/api/v1/webhooks', {
      key: org.key,
      body: { url: `http://127.0.0.1:${port}/late`, events: ['workflow.created'] },
    });
    const webhook = (await res.json()) as any;
    await createAnyWorkflow(org.key);
    const failing = await waitForDelivery(org.key, webhook.id, (d) => d.attempt_count >= 2);
    expect(failing.status).toBe('retrying');
    expect(failing.attempts[0]).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/ECONNREFUSED|failed/),
    });
    expect(Date.parse(failing.next_retry_at)).toBeGreaterThan(Date.parse(failing.attempts[0].started_at));

    const lateReceived: Received[] = [];
    const late = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        lateReceived.push({
          path: req.url ?? '/',
          at: Date.now(),
          headers: req.headers,
          body,
          signatureValid: verify(webhook.secret, req.headers, body),
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => late.listen(port, '127.0.0.1', r));
    try {
      const delivery = await waitForDelivery(org.key, webhook.id, (d) => d.status === 'succeeded');
      await deliveryEnded(delivery.id);
      expect(lateReceived).toHaveLength(1);
      expect(lateReceived[0]?.signatureValid).toBe(true);
      expect(delivery.attempts.at(-1)).toMatchObject({ status_code: 204, error: null });
      expect(delivery.attempt_count).toBeGreaterThanOrEqual(2);
    } finally {
      await new Promise<void>((r) => late.close(() => r()));
    }
  });

  it('gives up at once on a 404, after one attempt', async () => {
    const org = await newOrgWithWebhook('/gone', ['workflow.created']);
    script['/gone'] = [{ status: 404 }];
    await createAnyWorkflow(org.key);
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.status === 'failed');
    await deliveryEnded(delivery.id);
    expect(deliveriesTo('/gone')).toHaveLength(1);
    expect(delivery).toMatchObject({
      attempt_count: 1,
      last_status_code: 404,
      next_retry_at: null,
      delivered_at: null,
    });
    expect(delivery.attempts[0]).toMatchObject({ status_code: 404, error: 'HTTP 404' });
  });

  it('honours Retry-After on a 429', async () => {
    const org = await newOrgWithWebhook('/slow-down', ['workflow.created']);
    script['/slow-down'] = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200 }];
    await createAnyWorkflow(org.key);
    const retrying = await waitForDelivery(org.key, org.webhookId, (d) => d.attempt_count >= 1);
    expect(retrying.status).toBe('retrying');
    const wait = Date.parse(retrying.next_retry_at) - Date.parse(retrying.attempts[0].started_at);
    expect(wait).toBeGreaterThanOrEqual(2000);
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.status === 'succeeded');
    const [first, second] = deliveriesTo('/slow-down');
    // Without Retry-After the backoff would have retried after 100 ms.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1900);
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([429, 200]);
  });

  it('does not follow a redirect: a 3xx fails the delivery', async () => {
    const org = await newOrgWithWebhook('/moved', ['workflow.created']);
    script['/moved'] = [{ status: 302, headers: { location: `${baseUrl}/moved-here` } }];
    await createAnyWorkflow(org.key);
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.status === 'failed');
    await deliveryEnded(delivery.id);
    expect(deliveriesTo('/moved')).toHaveLength(1);
    expect(deliveriesTo('/moved-here')).toHaveLength(0);
    expect(delivery).toMatchObject({ attempt_count: 1, last_status_code: 302 });
    expect(delivery.attempts[0].error).toMatch(/redirects are not followed/);
  });

  it('sweeps deliveries whose start was lost, exactly once', async () => {
    const org = await newOrgWithWebhook('/swept', ['workflow.created']);
    // The verb without an engine: the outbox row commits, nothing starts it (a crash after commit).
    await createWorkflow({
      ctx: { db: h.db.app.db, organizationId: org.organizationId, actor: {} },
      secrets: h.secrets,
      input: WorkflowInput.parse({ name: 'Lost start', trigger_type: 'manual', nodes: [], edges: [] }),
    });
    const [pending] = await deliveries(org.key, org.webhookId);
    expect(pending).toMatchObject({ status: 'pending', attempt_count: 0 });

    const engine = createTemporalEngine({
      client: h.client,
      taskQueue: h.taskQueue,
      deliveryRetry: RETRY,
    });
    // Younger than a minute: not the sweeper's yet (its start may still be on its way).
    expect(await sweepUnstartedDeliveries(h.db.app.db, engine)).toBe(0);
    await h.db
      .admin`update webhook_deliveries set created_at = now() - interval '2 minutes' where id = ${pending.id}`;
    expect(await sweepUnstartedDeliveries(h.db.app.db, engine)).toBeGreaterThanOrEqual(1);
    // A second sweep while it runs starts nothing new (workflow id delivery-<id>).
    await sweepUnstartedDeliveries(h.db.app.db, engine);
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.status === 'succeeded');
    await sweepUnstartedDeliveries(h.db.app.db, engine);
    // Had that sweep started the delivery again, this waits for that run (the handle follows the
    // latest run of delivery-<id>).
    await deliveryEnded(delivery.id);
    expect(delivery.id).toBe(pending.id);
    expect(deliveriesTo('/swept')).toHaveLength(1);
    expect(deliveriesTo('/swept')[0]?.signatureValid).toBe(true);
  });

  it('stops retrying when the webhook is deleted', async () => {
    const org = await newOrgWithWebhook('/deleted', ['workflow.created']);
    script['/deleted'] = [{ status: 500 }];
    await createAnyWorkflow(org.key);
    const delivery = await waitForDelivery(org.key, org.webhookId, (d) => d.attempt_count >= 1);
    const res = await h.request('DELETE', `/api/v1/webhooks/${org.webhookId}`, { key: org.key });
    expect(res.status).toBe(204);
    const handle = h.client.workflow.getHandle(`delivery-${delivery.id}`);
    await expect(handle.result()).resolves.toMatchObject({ status: 'gone' });
  });
});
