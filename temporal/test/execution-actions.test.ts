import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingServer, startCountingServer } from './support';

/**
 * What an operator does to executions after they ran (issue 21), on the real engine:
 * - retrying a partial execution from its failed steps (§1.4): a new production execution
 *   (`retry_of` the original) reuses every step the original completed, so a counting HTTP server
 *   sees no second call to them, and runs the failed steps and what follows;
 * - searching the list by execution id and trigger data, and deleting ended executions (§2).
 */
let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: CountingServer;

const stepsOf = (execution: any, nodeId: string) => execution.steps.filter((s: any) => s.node_id === nodeId);
const step = (execution: any, nodeId: string) => stepsOf(execution, nodeId)[0];

async function api(method: string, path: string, body?: unknown) {
  const res = await h.request(method, `/api/v1${path}`, { key: org.key, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function createWorkflow(nodes: unknown[], edges: unknown[]) {
  const created = await api('POST', '/workflows', {
    name: `retry ${Math.random()}`,
    trigger_type: 'manual',
    status: 'active',
    nodes,
    edges,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

async function run(workflowId: string, input: unknown = {}) {
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return h.waitForExecution(org.key, started.body.execution_id);
}

async function retry(executionId: string) {
  const started = await api('POST', `/executions/${executionId}/retry`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body.retry_of).toBe(executionId);
  expect(started.body.id).not.toBe(executionId);
  return h.waitForExecution(org.key, started.body.id);
}

const http = (id: string, path: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'action.http_request',
  config: { method: 'GET', url: `${server.baseUrl}${path}` },
  ...extra,
});
const transform = (id: string, value: string) => ({
  id,
  type: 'action.transform',
  config: { assignments: [{ key: 'value', value }] },
});
const calls = (path: string) => server.byPath(path);

beforeAll(async () => {
  server = await startCountingServer(() => 1);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.server.close();
});

describe('retrying a partial execution from its failed steps', () => {
  it('reuses the completed steps, runs the failed step and the steps after it, and keeps the original', async () => {
    const wf = await createWorkflow(
      [
        http('order', '/order'),
        http('invoice', '/invoice', { on_failure: 'continue' }),
        transform('confirm', '{{nodes.invoice.body.ok}}'),
        http('notify', '/notify'),
      ],
      [
        { source: 'order', target: 'invoice' },
        { source: 'invoice', target: 'confirm' },
        { source: 'order', target: 'notify' },
      ],
    );
    server.failing.add('/invoice');
    const original = await run(wf.id, { order: 7 });
    expect(original.status).toBe('partial');
    expect(step(original, 'invoice').status).toBe('failed');
    expect([calls('/order'), calls('/invoice'), calls('/notify')]).toEqual([1, 1, 1]);

    server.failing.delete('/invoice');
    const retried = await retry(original.id);
    expect(retried.status).toBe('success');
    expect(retried.retry_of).toBe(original.id);
    expect(retried.mode).toBe('production');
    expect(retried.trigger).toBe('retry');
    // The order and the notification were not sent again; the invoice was, and what follows it ran.
    expect([calls('/order'), calls('/invoice'), calls('/notify')]).toEqual([1, 2, 1]);
    expect(step(retried, 'order')).toMatchObject({ status: 'completed', source: 'recorded' });
    expect(step(retried, 'notify')).toMatchObject({ status: 'completed', source: 'recorded' });
    expect(step(retried, 'invoice').source ?? null).toBeNull();
    expect(step(retried, 'invoice').output.body.ok).toBe(true);
    expect(step(retried, 'confirm').output).toEqual({ value: true });

    const after = await api('GET', `/executions/${original.id}`);
    expect(after.body.status).toBe('partial');
    const listed = await api('GET', `/executions?workflow_id=${wf.id}`);
    expect(listed.body.data.map((e: any) => e.retry_of)).toContain(original.id);
  });

  it('in a loop, runs again only the failed items and what follows the loop', async () => {
    const wf = await createWorkflow(
      [
        { id: 'each', type: 'action.loop', config: { items: '{{trigger.items}}' } },
        http('get', '/item/{{loop.item}}', { on_failure: 'continue' }),
        transform('after', '{{nodes.each.count}}'),
      ],
      [
        { source: 'each', target: 'get', source_handle: 'each' },
        { source: 'each', target: 'after', source_handle: 'done' },
      ],
    );
    server.failing.add('/item/b');
    const original = await run(wf.id, { items: ['a', 'b', 'c'] });
    expect(original.status).toBe('partial');
    server.failing.delete('/item/b');
    const retried = await retry(original.id);
    expect(retried.status).toBe('success');
    expect([calls('/item/a'), calls('/item/b'), calls('/item/c')]).toEqual([1, 2, 1]);
    expect(stepsOf(retried, 'get').map((s: any) => [s.iteration, s.status, s.source ?? null])).toEqual([
      [0, 'completed', 'recorded'],
      [1, 'completed', null],
      [2, 'completed', 'recorded'],
    ]);
  });

  it('retries once: a second retry is refused, and the original cannot be deleted while its retry waits', async () => {
    const nodes = (onFailure: string) => [http('charge', '/charge', { on_failure: onFailure })];
    const wf = await createWorkflow(nodes('continue'), []);
    server.failing.add('/charge');
    const original = await run(wf.id);
    expect(original.status).toBe('partial');
    // The saved workflow now stops at the failure: the retry fails and waits for its own retry.
    const updated = await api('PUT', `/workflows/${wf.id}`, {
      name: `retry ${Math.random()}`,
      trigger_type: 'manual',
      status: 'active',
      nodes: nodes('abort'),
      edges: [],
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const first = await api('POST', `/executions/${original.id}/retry`);
    expect(first.status).toBe(202);
    const retried = await h.waitForExecution(org.key, first.body.id);
    expect(retried.status).toBe('failed');

    const again = await api('POST', `/executions/${original.id}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(first.body.id);
    const refused = await api('DELETE', `/executions/${original.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(first.body.id);

    expect((await api('POST', `/executions/${first.body.id}/cancel`)).status).toBe(200);
    expect((await api('DELETE', `/executions/${original.id}`)).status).toBe(204);
    const audit = await api('GET', `/audit-logs?entity_type=execution`);
    expect(audit.body.data.map((e: any) => [e.action, e.entity_id])).toContainEqual(['deleted', original.id]);
    server.failing.delete('/charge');
  });

  it("another organization's execution: retry, delete and search see nothing", async () => {
    const wf = await createWorkflow([transform('only', '{{trigger.secret_word}}')], []);
    const mine = await run(wf.id, { secret_word: 'marmalade' });
    const other = await h.createOrg('elsewhere');
    const as = async (method: string, path: string) => {
      const res = await h.request(method, `/api/v1${path}`, { key: other.key });
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };
    expect((await as('DELETE', `/executions/${mine.id}`)).status).toBe(404);
    expect((await as('POST', `/executions/${mine.id}/retry`)).status).toBe(404);
    expect((await as('GET', `/executions?q=${mine.id}`)).body.data).toEqual([]);
    expect((await as('GET', '/executions?q=marmalade')).body.data).toEqual([]);
    // Still there for its own organization.
    expect((await api('GET', `/executions/${mine.id}`)).status).toBe(200);
  });

  it('answers 409 for an execution that succeeded, and 404 for an unknown one', async () => {
    const wf = await createWorkflow([transform('only', 'x')], []);
    const done = await run(wf.id);
    expect(done.status).toBe('success');
    const refused = await api('POST', `/executions/${done.id}/retry`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/failed and partial/);
    expect((await api('POST', '/executions/00000000-0000-4000-8000-000000000000/retry')).status).toBe(404);
  });
});

describe('the executions list: search and delete', () => {
  it('finds an execution by its id and by text in its trigger data or event, in any case', async () => {
    const wf = await createWorkflow([transform('only', '{{trigger.customer}}')], []);
    const ada = await run(wf.id, { customer: 'Ada Lovelace', order: 'A-100_%' });
    const bob = await run(wf.id, { customer: 'Bob Babbage', order: 'B-200' });
    const ids = async (q: string) => {
      const found = await api('GET', `/executions?workflow_id=${wf.id}&q=${encodeURIComponent(q)}`);
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      return found.body.data.map((e: any) => e.id);
    };
    expect(await ids(bob.id)).toEqual([bob.id]);
    expect(await ids(bob.id.toUpperCase())).toEqual([bob.id]);
    expect(await ids('lovelace')).toEqual([ada.id]);
    expect((await ids('B-')).sort()).toEqual([bob.id]);
    // LIKE's wildcards are text here: "_%" matches only the order that has them.
    expect(await ids('_%')).toEqual([ada.id]);
    expect(await ids('nobody at all')).toEqual([]);
    const tooLong = await api('GET', `/executions?q=${'x'.repeat(201)}`);
    expect(tooLong.status).toBe(422);
  });

  it('deletes an ended execution with its steps; refuses a failed one (it waits for a retry) and an unknown one', async () => {
    const wf = await createWorkflow([transform('only', 'x')], []);
    const done = await run(wf.id);
    expect((await api('DELETE', `/executions/${done.id}`)).status).toBe(204);
    expect((await api('GET', `/executions/${done.id}`)).status).toBe(404);
    expect((await api('DELETE', `/executions/${done.id}`)).status).toBe(404);

    const failing = await createWorkflow([http('boom', '/always-fails', { on_failure: 'abort' })], []);
    server.failing.add('/always-fails');
    const failed = await run(failing.id);
    expect(failed.status).toBe('failed');
    const refused = await api('DELETE', `/executions/${failed.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/cancel it first/);
    expect((await api('POST', `/executions/${failed.id}/cancel`)).status).toBe(200);
    expect((await api('DELETE', `/executions/${failed.id}`)).status).toBe(204);
    server.failing.delete('/always-fails');
  });
});
