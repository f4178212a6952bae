import { createServer, type Server } from 'node:http';
import { temporal } from '@temporalio/proto';
import { createApiKey, type PermissionGrant } from '@weft/domain';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
const calls: Record<string, number> = {};
let failuresLeft = 0;

const transform = (id: string, assignments: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'action.transform',
  config: { assignments: Object.entries(assignments).map(([key, value]) => ({ key, value })) },
  ...extra,
});

async function createWorkflow(body: Record<string, unknown>) {
  const res = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: { trigger_type: 'manual', status: 'active', ...body },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.id as string;
}

async function execute(workflowId: string, input: Record<string, unknown> = {}) {
  const res = await h.request('POST', `/api/v1/workflows/${workflowId}/execute`, {
    key: org.key,
    body: { input },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(202);
  return json.execution_id as string;
}

const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    calls[path] = (calls[path] ?? 0) + 1;
    if (path === '/flaky' && failuresLeft > 0) {
      failuresLeft--;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not yet' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path, idempotency_key: req.headers['idempotency-key'] ?? null, ok: true }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.close();
});

describe('the graph interpreter', () => {
  it('runs transform → condition → branch, skipping the branch not taken', async () => {
    const id = await createWorkflow({
      name: 'four nodes',
      nodes: [
        transform('prepare', { total: '{{trigger.total}}', customer: '{{trigger.customer.name | upper}}' }),
        {
          id: 'check',
          type: 'action.condition',
          config: { conditions: [{ left: '{{nodes.prepare.total}}', operator: 'gt', right: '100' }] },
        },
        transform('big', { tier: 'big for {{nodes.prepare.customer}}' }),
        transform('small', { tier: 'small' }),
      ],
      edges: [
        { source: 'prepare', target: 'check' },
        { source: 'check', target: 'big', source_handle: 'true' },
        { source: 'check', target: 'small', source_handle: 'false' },
      ],
    });
    const executionId = await execute(id, { total: 250, customer: { name: 'ada' } });
    const execution = await h.waitForExecution(org.key, executionId);
    expect(execution.status, JSON.stringify(execution.steps)).toBe('success');
    expect(execution.trigger).toBe('api');
    expect(step(execution, 'prepare').output).toEqual({ total: 250, customer: 'ADA' });
    expect(step(execution, 'check').output).toEqual({ result: true });
    expect(step(execution, 'big').output).toEqual({ tier: 'big for ADA' });
    expect(step(execution, 'small').status).toBe('skipped');
    expect(execution.duration_ms).toBeGreaterThanOrEqual(0);
    expect(execution.temporal_url).toContain(`exec-${executionId}`);

    // Temporal's history holds the trigger payload and step outputs only encrypted (PayloadCodec).
    const history = await h.temporal.client.workflow.getHandle(`exec-${executionId}`).fetchHistory();
    // Payload bytes come back base64-encoded: decode every string so plain text would show.
    const text = JSON.stringify(history, (_key, value) =>
      typeof value === 'string' && /^[A-Za-z0-9+/]+=*$/.test(value) && value.length % 4 === 0
        ? Buffer.from(value, 'base64').toString('latin1')
        : value,
    );
    expect(text).toContain('binary/encrypted');
    expect(text).not.toContain('big for ADA');
    expect(text).not.toContain('"ada"');
  });

  it('on_failure continue marks the step failed and ends partial; abort ends failed and fires error.critical', async () => {
    const watcher = await createWorkflow({
      name: 'error watcher',
      trigger_type: 'event',
      trigger_config: { event: 'error.critical' },
      nodes: [transform('note', { failed: '{{trigger.execution_id}}' })],
    });
    const partialId = await createWorkflow({
      name: 'continues',
      nodes: [
        {
          id: 'boom',
          type: 'action.http_request',
          config: { url: 'http://169.254.169.254/latest/meta-data' },
        },
        transform('after', { still: 'ran' }),
      ],
      edges: [{ source: 'boom', target: 'after' }],
    });
    const partial = await h.waitForExecution(org.key, await execute(partialId));
    expect(partial.status).toBe('partial');
    expect(step(partial, 'boom').status).toBe('failed');
    expect(step(partial, 'boom').error.code).toBe('ssrf_blocked');
    expect(step(partial, 'after').output).toEqual({ still: 'ran' });

    const failingId = await createWorkflow({
      name: 'aborts',
      nodes: [
        {
          id: 'boom',
          type: 'action.http_request',
          on_failure: 'abort',
          config: { url: 'http://169.254.169.254/' },
        },
        transform('never', { x: 'y' }),
      ],
      edges: [{ source: 'boom', target: 'never' }],
    });
    const failedId = await execute(failingId);
    const failed = await h.waitForExecution(org.key, failedId);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('ssrf_blocked');
    expect(step(failed, 'never')).toBeUndefined();

    // error.critical started the watcher once, for the aborted execution only: on_failure continue
    // (the partial one) fires nothing.
    const watcherRuns = async () =>
      (
        (await (
          await h.request('GET', `/api/v1/executions?workflow_id=${watcher}`, { key: org.key })
        ).json()) as any
      ).data as any[];
    await expect.poll(async () => (await watcherRuns()).length, { timeout: 30_000, interval: 50 }).toBe(1);
    const [watcherRun] = await watcherRuns();
    expect(watcherRun.event).toBe('error.critical');
    const watched = await h.waitForExecution(org.key, watcherRun.id);
    expect(step(watched, 'note').output).toEqual({ failed: failedId });
  });

  it('retries a failed execution in place: earlier steps keep their outputs and run once', async () => {
    failuresLeft = 1;
    const before = calls['/first'] ?? 0;
    const id = await createWorkflow({
      name: 'retry in place',
      nodes: [
        {
          id: 'first',
          type: 'action.http_request',
          config: { url: `${baseUrl}/first`, method: 'POST', body: { a: 1 } },
        },
        {
          id: 'flaky',
          type: 'action.http_request',
          on_failure: 'abort',
          config: { url: `${baseUrl}/flaky` },
        },
        transform('done', { from_first: '{{nodes.first.body.path}}' }),
      ],
      edges: [
        { source: 'first', target: 'flaky' },
        { source: 'flaky', target: 'done' },
      ],
    });
    const executionId = await execute(id);
    const failed = await h.waitForExecution(org.key, executionId);
    expect(failed.status).toBe('failed');
    expect(failed.attempt).toBe(1);
    expect(step(failed, 'flaky').error.code).toBe('http_status');
    expect(step(failed, 'first').output.body.idempotency_key).toBe(`${executionId}:first`);

    const retried = await h.request('POST', `/api/v1/executions/${executionId}/retry`, { key: org.key });
    expect(retried.status).toBe(202);
    const done = await h.waitForExecution(org.key, executionId, (e) => e.status === 'success');
    expect(done.attempt).toBe(2);
    expect(step(done, 'flaky').attempt).toBe(2);
    expect(step(done, 'done').output).toEqual({ from_first: '/first' });
    expect((calls['/first'] ?? 0) - before).toBe(1);

    const again = await h.request('POST', `/api/v1/executions/${executionId}/retry`, { key: org.key });
    expect(again.status).toBe(409);
  });

  it('publishes events to active workflows by exact name and category, never to inactive ones', async () => {
    const exact = await createWorkflow({
      name: 'exact',
      trigger_type: 'event',
      trigger_config: { event: 'order.shipped' },
      nodes: [transform('t', { id: '{{trigger.order_id}}' })],
    });
    await createWorkflow({
      name: 'category',
      trigger_type: 'event',
      trigger_config: { event: 'order.*' },
      nodes: [transform('t', { id: '{{trigger.order_id}}' })],
    });
    await createWorkflow({
      name: 'inactive',
      status: 'inactive',
      trigger_type: 'event',
      trigger_config: { event: 'order.shipped' },
      nodes: [transform('t', { id: 'x' })],
    });
    const res = await h.request('POST', '/api/v1/events', {
      key: org.key,
      body: { event: 'order.shipped', payload: { order_id: 'A-1' } },
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ event: 'order.shipped', workflows_triggered: 2 });
    const runs = await Promise.all(body.execution_ids.map((e: string) => h.waitForExecution(org.key, e)));
    expect(runs.every((r: any) => r.status === 'success' && r.trigger === 'event')).toBe(true);
    expect(runs.map((r: any) => step(r, 't').output.id)).toEqual(['A-1', 'A-1']);
    expect(runs.map((r: any) => r.workflow_id)).toContain(exact);

    const other = await h.createOrg('Other');
    const isolated = await h.request('POST', '/api/v1/events', {
      key: other.key,
      body: { event: 'order.shipped', payload: {} },
    });
    expect(((await isolated.json()) as any).workflows_triggered).toBe(0);
  });

  it('waits for an event and resumes when a matching one is published', async () => {
    const id = await createWorkflow({
      name: 'waits',
      nodes: [
        {
          id: 'wait',
          type: 'action.wait_for_event',
          config: {
            event: 'payment.received',
            match: { field: 'order_id', equals: '{{trigger.order_id}}' },
            timeout: '1h',
          },
        },
        transform('paid', { amount: '{{nodes.wait.event.amount}}' }),
      ],
      edges: [{ source: 'wait', target: 'paid', source_handle: 'received' }],
    });
    const executionId = await execute(id, { order_id: 'O-9' });
    const waiting = await h.waitForExecution(org.key, executionId, (e) => e.status === 'waiting');
    expect(step(waiting, 'wait').status).toBe('waiting');
    await h.request('POST', '/api/v1/events', {
      key: org.key,
      body: { event: 'payment.received', payload: { order_id: 'other', amount: 1 } },
    });
    await h.request('POST', '/api/v1/events', {
      key: org.key,
      body: { event: 'payment.received', payload: { order_id: 'O-9', amount: 42 } },
    });
    const done = await h.waitForExecution(org.key, executionId);
    expect(done.status).toBe('success');
    expect(step(done, 'paid').output).toEqual({ amount: 42 });
  });

  it('cancels a waiting execution', async () => {
    const id = await createWorkflow({
      name: 'sleeps',
      nodes: [{ id: 'nap', type: 'action.delay', config: { duration: '1h' } }],
    });
    const executionId = await execute(id);
    await h.waitForExecution(org.key, executionId, (e) => e.status === 'waiting');
    const res = await h.request('POST', `/api/v1/executions/${executionId}/cancel`, { key: org.key });
    expect(res.status).toBe(200);
    const cancelled = await h.waitForExecution(org.key, executionId);
    expect(cancelled.status).toBe('cancelled');
    const handle = h.client.workflow.getHandle(`exec-${executionId}`);
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
  });

  it('loops over items with loop.item, loop.index and loop.count', async () => {
    const id = await createWorkflow({
      name: 'loops',
      nodes: [
        { id: 'each', type: 'action.loop', config: { items: '{{trigger.items}}' } },
        transform('label', { text: '{{loop.index}}/{{loop.count}}: {{loop.item.sku | upper}}' }),
        transform('after', { total: '{{nodes.each.count}}' }),
      ],
      edges: [
        { source: 'each', target: 'label', source_handle: 'each' },
        { source: 'each', target: 'after', source_handle: 'done' },
      ],
    });
    const items = Array.from({ length: 50 }, (_, i) => ({ sku: `sku-${i}` }));
    const execution = await h.waitForExecution(org.key, await execute(id, { items }));
    expect(execution.status).toBe('success');
    expect(step(execution, 'after').output).toEqual({ total: 50 });
    expect(step(execution, 'each').output.results[49]).toEqual({ text: '49/50: SKU-49' });
    expect(execution.steps.filter((s: any) => s.node_id === 'label')).toHaveLength(50);
  });

  it('loops over 10,000 items without hitting Temporal payload or history limits', async () => {
    const id = await createWorkflow({
      name: 'big loop',
      nodes: [
        { id: 'each', type: 'action.loop', config: { items: '{{trigger.items}}', max_items: 10000 } },
        transform('double', { n: '{{loop.item}}' }),
      ],
      edges: [{ source: 'each', target: 'double', source_handle: 'each' }],
    });
    const items = Array.from({ length: 10_000 }, (_, i) => i);
    const executionId = await execute(id, { items });
    const execution = await h.waitForExecution(org.key, executionId, undefined, 120_000);
    expect(execution.status).toBe('success');
    expect(step(execution, 'each').output.count).toBe(10_000);
    const [row] = await h.db
      .admin`select count(*)::int as n from execution_steps where execution_id = ${executionId} and node_id = 'double'`;
    expect(row?.n).toBe(10_000);
    const history = await h.client.workflow.getHandle(`exec-${executionId}`).fetchHistory();
    expect(history.events?.length ?? 0).toBeLessThan(1000);
    // The loop ends its activations with checkpoints (local activities), not timers: a Temporal
    // timer fires ~1 s late however short it is, 50 s over this loop.
    const { EventType } = temporal.api.enums.v1;
    const count = (type: number) => (history.events ?? []).filter((e) => e.eventType === type).length;
    expect(count(EventType.EVENT_TYPE_TIMER_STARTED)).toBe(0);
    expect(count(EventType.EVENT_TYPE_MARKER_RECORDED)).toBeGreaterThanOrEqual(50);
  }, 150_000);

  it('runs JavaScript in the code node sandbox', async () => {
    const id = await createWorkflow({
      name: 'code',
      nodes: [
        {
          id: 'js',
          type: 'action.code',
          config: {
            code: 'return { doubled: input.trigger.n * 2, hasProcess: typeof process !== "undefined" }',
          },
        },
      ],
    });
    const execution = await h.waitForExecution(org.key, await execute(id, { n: 21 }));
    expect(step(execution, 'js').output).toEqual({ doubled: 42, hasProcess: false });
  });

  it('answers 404 for another organization and 409 for retrying a successful execution', async () => {
    const id = await createWorkflow({ name: 'simple', nodes: [transform('a', { b: 'c' })] });
    const executionId = await execute(id);
    await h.waitForExecution(org.key, executionId);
    const other = await h.createOrg('Stranger');
    expect((await h.request('GET', `/api/v1/executions/${executionId}`, { key: other.key })).status).toBe(
      404,
    );
    expect(
      (await h.request('POST', `/api/v1/executions/${executionId}/retry`, { key: other.key })).status,
    ).toBe(404);
    expect(
      (await h.request('POST', `/api/v1/workflows/${id}/execute`, { key: other.key, body: {} })).status,
    ).toBe(404);
    expect(
      (await h.request('POST', `/api/v1/executions/${executionId}/retry`, { key: org.key })).status,
    ).toBe(409);
    const completed = (await (
      await h.request('GET', `/api/v1/executions?status=completed&workflow_id=${id}`, { key: org.key })
    ).json()) as any;
    expect(completed.meta.total).toBe(1);
  });
});

describe('bad input to the engine endpoints', () => {
  const count = async () => {
    const [row] = await h.db
      .admin`select count(*)::int as n from executions where organization_id = ${org.organizationId}`;
    return row?.n ?? 0;
  };

  it('refuses malformed events with 422 on the field and stores nothing', async () => {
    const before = await count();
    const cases: [unknown, string][] = [
      [{ event: 'order.created' }, 'payload'],
      [{ event: 'Not An Event', payload: {} }, 'event'],
      [{ event: 'order', payload: {} }, 'event'],
      [{ event: 'order.created', payload: [1, 2] }, 'payload'],
      [{ event: 42, payload: {} }, 'event'],
    ];
    for (const [body, field] of cases) {
      const res = await h.request('POST', '/api/v1/events', { key: org.key, body });
      const json = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(json.error.code).toBe('validation_error');
      expect(
        Object.keys(json.error.fields).some((k) => k.startsWith(field)),
        JSON.stringify(json),
      ).toBe(true);
    }
    const nul = await h.request('POST', '/api/v1/events', {
      key: org.key,
      body: { event: 'a.b', payload: { x: 'a\u0000b' } },
    });
    expect(nul.status).toBe(422);
    expect(await count()).toBe(before);
  });

  it('runs a repeated event with the same Idempotency-Key once', async () => {
    await createWorkflow({
      name: 'idempotent listener',
      trigger_type: 'event',
      trigger_config: { event: 'invoice.created' },
      nodes: [transform('t', { id: '{{trigger.id}}' })],
    });
    const before = await count();
    const send = () =>
      h.app.request('/api/v1/events', {
        method: 'POST',
        headers: { 'X-Api-Key': org.key, 'Content-Type': 'application/json', 'Idempotency-Key': 'invoice-7' },
        body: JSON.stringify({ event: 'invoice.created', payload: { id: 7 } }),
      });
    const first = await send();
    const second = await send();
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.headers.get('Idempotent-Replayed')).toBe('true');
    expect(((await second.json()) as any).execution_ids).toEqual(((await first.json()) as any).execution_ids);
    expect(await count()).toBe(before + 1);
  });

  it('answers 422 on bad list filters, 404 on unknown ids, 409 on impossible transitions, 403 without permission', async () => {
    for (const query of [
      'status=bogus',
      'per_page=101',
      'per_page=0',
      'workflow_id=not-a-uuid',
      'from=yesterday',
    ]) {
      const res = await h.request('GET', `/api/v1/executions?${query}`, { key: org.key });
      expect(res.status, query).toBe(422);
    }
    for (const path of [
      '/api/v1/workflows/not-a-uuid/execute',
      '/api/v1/workflows/00000000-0000-0000-0000-000000000000/execute',
      '/api/v1/executions/00000000-0000-0000-0000-000000000000/cancel',
      '/api/v1/executions/not-a-uuid/retry',
    ]) {
      const res = await h.request('POST', path, { key: org.key, body: {} });
      expect(res.status, path).toBe(404);
    }
    const id = await createWorkflow({ name: 'quick', nodes: [transform('a', { b: 'c' })] });
    const badInput = await h.request('POST', `/api/v1/workflows/${id}/execute`, {
      key: org.key,
      body: { input: [1] },
    });
    expect(badInput.status).toBe(422);
    const executionId = await execute(id);
    await h.waitForExecution(org.key, executionId);
    const cancel = await h.request('POST', `/api/v1/executions/${executionId}/cancel`, { key: org.key });
    expect(cancel.status).toBe(409);
    expect(((await cancel.json()) as any).error.code).toBe('conflict');

    const viewer = await h.createOrg('Viewer org');
    const readOnly = await createApiKeyFor(viewer.organizationId, ['executions.view']);
    const forbidden = await h.request('POST', '/api/v1/events', {
      key: readOnly,
      body: { event: 'a.b', payload: {} },
    });
    expect(forbidden.status).toBe(403);
  });
});

async function createApiKeyFor(organizationId: string, permissions: PermissionGrant[]) {
  const created = await createApiKey({
    ctx: { db: h.db.app.db, organizationId, actor: {} },
    input: { name: 'limited', permissions },
  });
  return created.key;
}
