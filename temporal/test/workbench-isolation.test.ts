import { schema, withTenant } from '@weft/db';
import { findRecordedStep } from '@weft/domain';
import { metrics } from '@weft/telemetry';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingServer, startCountingServer } from './support';

/**
 * A test run stays out of production (DESIGN §15), on the real engine: the events it publishes,
 * the metrics and the dashboard, and the retry of a failed run.
 */
let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: CountingServer;

const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);

async function api(method: string, path: string, body?: unknown, key = org.key) {
  const res = await h.request(method, `/api/v1${path}`, { key, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function createWorkflow(body: Record<string, unknown>) {
  const created = await api('POST', '/workflows', { trigger_type: 'manual', status: 'active', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

async function finished(started: { status: number; body: any }) {
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return h.waitForExecution(org.key, started.body.execution_id);
}

beforeAll(async () => {
  server = await startCountingServer(() => 1);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.server.close();
});

describe('events a test run publishes', () => {
  it('start their listeners as test runs and wake no production run waiting for them', async () => {
    const listener = await createWorkflow({
      name: 'listener',
      trigger_type: 'event',
      trigger_config: { event: 'probe.fired' },
      nodes: [{ id: 'seen', type: 'action.transform', config: { assignments: [{ key: 'v', value: 'x' }] } }],
    });
    const waiter = await createWorkflow({
      name: 'waiter',
      nodes: [
        { id: 'wait', type: 'action.wait_for_event', config: { event: 'probe.fired', timeout: '1h' } },
        {
          id: 'got',
          type: 'action.transform',
          config: { assignments: [{ key: 'from', value: '{{nodes.wait.event.from}}' }] },
        },
      ],
      edges: [{ source: 'wait', target: 'got', source_handle: 'received' }],
    });
    const publisher = await createWorkflow({
      name: 'publisher',
      nodes: [
        {
          id: 'pub',
          type: 'action.event.publish',
          config: { event: 'probe.fired', payload: { from: 'test' } },
        },
      ],
    });
    const started = await api('POST', `/workflows/${waiter.id}/execute`, { input: {} });
    expect(started.status).toBe(202);
    const waiting = started.body.execution_id as string;
    await h.waitForExecution(org.key, waiting, (e) => e.status === 'waiting');

    const test = await finished(await api('POST', `/workflows/${publisher.id}/test`, {}));
    expect(test.status).toBe('success');
    expect(step(test, 'pub').output).toMatchObject({ workflows_triggered: 1 });

    const listened = await api('GET', `/executions?workflow_id=${listener.id}`);
    expect(listened.body.data).toHaveLength(1);
    expect(listened.body.data[0]).toMatchObject({ mode: 'test', trigger: 'event' });

    // The test run's event was not delivered: the first event the waiter receives is the real one.
    const real = await api('POST', '/events', { event: 'probe.fired', payload: { from: 'production' } });
    expect(real.status).toBe(202);
    const woken = await h.waitForExecution(org.key, waiting);
    expect(woken.status).toBe('success');
    expect(step(woken, 'got').output).toEqual({ from: 'production' });
  });
});

describe('a test run from a step (start_at)', () => {
  it('never runs an earlier step for real: without a pin or a completed recording it fails; a sibling branch is skipped', async () => {
    const http = (id: string, path: string) => ({
      id,
      type: 'action.http_request',
      config: { method: 'GET', url: `${server.baseUrl}${path}` },
    });
    const transform = (id: string) => ({
      id,
      type: 'action.transform',
      config: { assignments: [{ key: 'v', value: id }] },
    });
    const wf = await createWorkflow({
      name: 'run from',
      nodes: [transform('a'), http('send', '/send'), transform('c'), http('side', '/sibling')],
      edges: [
        { source: 'a', target: 'send' },
        { source: 'send', target: 'c' },
        { source: 'a', target: 'side' },
      ],
    });
    // The source run stopped after `a`: `send` has no completed output there.
    const source = await finished(await api('POST', `/workflows/${wf.id}/test`, { stop_after: 'a' }));
    expect(step(source, 'send')).toMatchObject({ status: 'skipped', source: 'stopped' });

    const from = await finished(
      await api('POST', `/workflows/${wf.id}/test`, { start_at: 'c', source_execution_id: source.id }),
    );
    expect(from.status).toBe('partial'); // on_failure defaults to continue
    expect(step(from, 'a')).toMatchObject({ status: 'completed', source: 'recorded' });
    expect(step(from, 'send')).toMatchObject({ status: 'failed', error: { code: 'no_recording' } });
    expect(step(from, 'send').error.message).toContain('"send"');
    expect(step(from, 'side')).toMatchObject({ status: 'skipped', source: 'stopped' });
    expect(server.byPath('/send')).toBe(0);
    expect(server.byPath('/sibling')).toBe(0);
  });
});

describe('production numbers', () => {
  it('count no test run: finished-executions metrics (the alerts) and the dashboard', async () => {
    const own = await h.createOrg('numbers');
    const created = await api(
      'POST',
      '/workflows',
      {
        name: 'counted',
        trigger_type: 'manual',
        status: 'active',
        nodes: [{ id: 'a', type: 'action.transform', config: { assignments: [{ key: 'v', value: '1' }] } }],
      },
      own.key,
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const finishedFor = async () =>
      (await metrics.workflowExecutionsFinished.get()).values
        .filter((v) => v.labels.workflow_id === id)
        .reduce((sum, v) => sum + v.value, 0);

    const test = await api('POST', `/workflows/${id}/test`, {}, own.key);
    expect((await h.waitForExecution(own.key, test.body.execution_id)).status).toBe('success');
    const production = await api('POST', `/workflows/${id}/execute`, { input: {} }, own.key);
    expect((await h.waitForExecution(own.key, production.body.execution_id)).status).toBe('success');

    await expect.poll(finishedFor).toBeGreaterThan(0);
    expect(await finishedFor()).toBe(1);
    const dashboard = await api('GET', '/dashboard', undefined, own.key);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body.days.at(-1).by_status).toEqual({ success: 1 });
  });
});

describe('a failed test run', () => {
  it('ends failed at once (no run parked for a retry), and POST /executions/{id}/retry answers 409', async () => {
    const wf = await createWorkflow({
      name: 'aborts in a test',
      nodes: [
        {
          id: 'boom',
          type: 'action.http_request',
          on_failure: 'abort',
          config: { url: 'http://169.254.169.254/' },
        },
      ],
    });
    const test = await finished(await api('POST', `/workflows/${wf.id}/test`, {}));
    expect(test.status).toBe('failed');
    expect(test.error.code).toBe('ssrf_blocked');
    const handle = h.client.workflow.getHandle(`exec-${test.id}`);
    await expect
      .poll(async () => (await handle.describe()).status.name, { timeout: 10_000 })
      .toBe('COMPLETED');

    const retry = await api('POST', `/executions/${test.id}/retry`);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('conflict');
    expect(retry.body.error.message).toContain('Test runs and replays cannot be retried');
  });
});

describe('replay recordings', () => {
  it('copy a large recorded output once however often the look-up is retried', async () => {
    const wf = await createWorkflow({
      name: 'large output',
      nodes: [
        { id: 'a', type: 'action.transform', config: { assignments: [{ key: 'v', value: 'x'.repeat(64) }] } },
      ],
    });
    const source = await finished(await api('POST', `/workflows/${wf.id}/execute`, { input: {} }));
    const target = await finished(await api('POST', `/workflows/${wf.id}/test`, { stop_after: 'a' }));
    const lookUp = () =>
      findRecordedStep(
        h.db.app.db,
        {
          organizationId: org.organizationId,
          executionId: target.id,
          sourceExecutionId: source.id,
          nodeId: 'a',
          nodeType: 'action.transform',
          iteration: -1,
        },
        0, // every output is "large": stored for the target execution
      );
    const first = await lookUp();
    const retried = await lookUp();
    expect(first).toMatchObject({ status: 'completed', output: { size_bytes: expect.any(Number) } });
    expect(retried).toEqual(first);
    const so = schema.storedOutputs;
    const rows = await withTenant(h.db.app.db, org.organizationId, (tx) =>
      tx.select({ id: so.id }).from(so).where(eq(so.executionId, target.id)),
    );
    expect(rows).toHaveLength(1);
  });

  it('refuse a workflow with a loop inside a loop body (422, naming both loops)', async () => {
    const wf = await createWorkflow({
      name: 'nested loops',
      nodes: [
        { id: 'outer', type: 'action.loop', config: { items: '{{trigger.rows}}' } },
        { id: 'inner', type: 'action.loop', config: { items: '{{loop.item}}' } },
        {
          id: 'cell',
          type: 'action.transform',
          config: { assignments: [{ key: 'v', value: '{{loop.item}}' }] },
        },
      ],
      edges: [
        { source: 'outer', target: 'inner', source_handle: 'each' },
        { source: 'inner', target: 'cell', source_handle: 'each' },
      ],
    });
    const original = await finished(
      await api('POST', `/workflows/${wf.id}/execute`, { input: { rows: [[1, 2], [3]] } }),
    );
    expect(original.status).toBe('success');
    const replay = await api('POST', `/executions/${original.id}/replay`, {});
    expect(replay.status).toBe(422);
    expect(replay.body.error.message).toContain('"inner"');
    expect(replay.body.error.message).toContain('"outer"');
  });
});
