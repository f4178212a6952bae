import { createServer, type Server } from 'node:http';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Durable timers on the time-skipping test server: hours and days of workflow time in seconds.
// Time is global to the server, so these tests run one after the other on one harness.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
let failuresLeft = 0;

const transform = (id: string, assignments: Record<string, string>) => ({
  id,
  type: 'action.transform',
  config: { assignments: Object.entries(assignments).map(([key, value]) => ({ key, value })) },
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
const at = (iso: string) => Date.parse(iso);

/** Until the workflow has started its timer and nothing else runs (the activity publishing error.critical). */
async function waitForTimer(executionId: string) {
  const handle = h.client.workflow.getHandle(`exec-${executionId}`);
  // Bounded by time, as long as the test's own timeout, not by a count of tries.
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const { events } = await handle.fetchHistory();
    if ((events ?? []).some((e) => e.timerStartedEventAttributes)) {
      if (((await handle.describe()).raw.pendingActivities ?? []).length === 0) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`exec-${executionId} never parked on a timer`);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/flaky' && failuresLeft > 0) {
      failuresLeft--;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not yet' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ timeSkipping: true, ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.close();
});

describe('durable timers (time-skipping server)', () => {
  it('delays 2h: waiting, then success after skipped time, in seconds of real time', async () => {
    const id = await createWorkflow({
      name: 'two hours',
      nodes: [
        { id: 'nap', type: 'action.delay', config: { duration: '2h' } },
        transform('after', { woke: '{{nodes.nap.resumed_at}}' }),
      ],
      edges: [{ source: 'nap', target: 'after' }],
    });
    const serverStart = await h.now();
    const executionId = await execute(id);

    const waiting = await h.waitForExecution(org.key, executionId, (e) => e.status === 'waiting');
    expect(step(waiting, 'nap').status).toBe('waiting');
    expect(step(waiting, 'after')).toBeUndefined();
    // Until a test skips time, the server's clock runs at real speed: once the run is parked on
    // its 2h timer, it stays there.
    await waitForTimer(executionId);
    const still = await h.waitForExecution(org.key, executionId, () => true);
    expect(still.status).toBe('waiting');

    await expect(h.waitForResult(executionId)).resolves.toEqual({ status: 'success' });
    // The server skipped to the timer, not beyond it.
    const skipped = (await h.now()) - serverStart;
    expect(skipped).toBeGreaterThanOrEqual(2 * HOUR);
    expect(skipped).toBeLessThan(2 * HOUR + 60_000);
    const done = await h.waitForExecution(org.key, executionId);
    expect(done.status).toBe('success');
    const nap = step(done, 'nap');
    expect(nap.status).toBe('completed');
    const waited = at(nap.output.resumed_at) - at(nap.started_at);
    expect(waited).toBeGreaterThanOrEqual(2 * HOUR);
    expect(waited).toBeLessThan(2 * HOUR + 60_000);
    expect(nap.duration_ms).toBeGreaterThanOrEqual(2 * HOUR);
    expect(step(done, 'after').output).toEqual({ woke: nap.output.resumed_at });
    // The 2 h took real seconds: the test's own timeout is the bound (a tighter one fails a busy machine).
  });

  it('delays until an instant from the trigger payload; an instant in the past continues at once', async () => {
    const id = await createWorkflow({
      name: 'until due',
      nodes: [{ id: 'nap', type: 'action.delay', config: { until: '{{trigger.due}}' } }],
    });
    const due = new Date((await h.now()) + 3 * DAY).toISOString();
    const executionId = await execute(id, { due });
    const waiting = await h.waitForExecution(org.key, executionId, (e) => e.status === 'waiting');
    expect(step(waiting, 'nap').resolved_config).toEqual({ until: due });

    await expect(h.waitForResult(executionId)).resolves.toEqual({ status: 'success' });
    const done = await h.waitForExecution(org.key, executionId);
    const resumedAt = at(step(done, 'nap').output.resumed_at);
    expect(resumedAt).toBeGreaterThanOrEqual(at(due));
    expect(resumedAt - at(due)).toBeLessThan(60_000);

    // In the past: the timer is (about) zero, so the execution ends without skipping any time.
    const serverBefore = await h.now();
    const past = new Date(serverBefore - 5 * DAY).toISOString();
    const pastId = await execute(id, { due: past });
    const ended = await h.waitForExecution(org.key, pastId, undefined, 30_000);
    expect(ended.status).toBe('success');
    expect(at(step(ended, 'nap').output.resumed_at) - serverBefore).toBeLessThan(60_000);
    expect((await h.now()) - serverBefore).toBeLessThan(60_000);
  });

  it('wait_for_event with no event ends through the timeout handle after 1d', async () => {
    const id = await createWorkflow({
      name: 'waits in vain',
      nodes: [
        { id: 'wait', type: 'action.wait_for_event', config: { event: 'payment.received', timeout: '1d' } },
        transform('paid', { ok: 'yes' }),
        transform('late', { timed_out: '{{nodes.wait.timed_out}}' }),
      ],
      edges: [
        { source: 'wait', target: 'paid', source_handle: 'received' },
        { source: 'wait', target: 'late', source_handle: 'timeout' },
      ],
    });
    const executionId = await execute(id);
    const waiting = await h.waitForExecution(org.key, executionId, (e) => e.status === 'waiting');
    expect(step(waiting, 'wait').status).toBe('waiting');

    await expect(h.waitForResult(executionId)).resolves.toEqual({ status: 'success' });
    const done = await h.waitForExecution(org.key, executionId);
    expect(done.status).toBe('success');
    const wait = step(done, 'wait');
    expect(wait.output).toEqual({ timed_out: true, event: null });
    expect(wait.duration_ms).toBeGreaterThanOrEqual(DAY);
    expect(wait.duration_ms).toBeLessThan(DAY + 60_000);
    expect(step(done, 'late').output).toEqual({ timed_out: true });
    expect(step(done, 'paid').status).toBe('skipped');
  });

  describe('a failed execution parked for retry', () => {
    let workflowId: string;
    const failOnce = async () => {
      failuresLeft = 1;
      const executionId = await execute(workflowId);
      const failed = await h.waitForExecution(org.key, executionId);
      expect(failed.status).toBe('failed');
      expect(step(failed, 'flaky').error.code).toBe('http_status');
      await waitForTimer(executionId);
      return executionId;
    };

    beforeAll(async () => {
      workflowId = await createWorkflow({
        name: 'parks',
        nodes: [
          {
            id: 'flaky',
            type: 'action.http_request',
            on_failure: 'abort',
            config: { url: `${baseUrl}/flaky` },
          },
          transform('done', { status: '{{nodes.flaky.status}}' }),
        ],
        edges: [{ source: 'flaky', target: 'done' }],
      });
    });

    it('stays retryable after 6 days of skipped time', async () => {
      const executionId = await failOnce();
      const before = await h.now();
      await h.skipTime('6d');
      expect((await h.now()) - before).toBeGreaterThanOrEqual(6 * DAY);
      const parked = await h.waitForExecution(org.key, executionId, () => true);
      expect(parked.status).toBe('failed');
      const handle = h.client.workflow.getHandle(`exec-${executionId}`);
      expect((await handle.describe()).status.name).toBe('RUNNING');

      const retried = await h.request('POST', `/api/v1/executions/${executionId}/retry`, { key: org.key });
      expect(retried.status).toBe(202);
      await expect(h.waitForResult(executionId)).resolves.toEqual({ status: 'success' });
      const done = await h.waitForExecution(org.key, executionId);
      expect(done.status).toBe('success');
      expect(done.attempt).toBe(2);
      expect(step(done, 'flaky').attempt).toBe(2);
      expect(step(done, 'done').output).toEqual({ status: 200 });
    });

    it('ends at the 7-day deadline: the workflow fails and the execution can no longer be retried', async () => {
      const executionId = await failOnce();
      const parkedAt = await h.now();
      const failure = await h.waitForResult(executionId).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      const cause = (failure as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('deadline');
      const waited = (await h.now()) - parkedAt;
      expect(waited).toBeGreaterThanOrEqual(7 * DAY - 60_000);
      expect(waited).toBeLessThan(7 * DAY + 60_000);
      const handle = h.client.workflow.getHandle(`exec-${executionId}`);
      expect((await handle.describe()).status.name).toBe('FAILED');

      const ended = await h.waitForExecution(org.key, executionId, () => true);
      expect(ended.status).toBe('failed');
      // The record says why it can no longer be retried; the failed step keeps its own error.
      expect(ended.error.code).toBe('retry_expired');
      expect(step(ended, 'flaky').error.code).toBe('http_status');
      expect(ended.attempt).toBe(1);
      expect(step(ended, 'done')).toBeUndefined();

      const retried = await h.request('POST', `/api/v1/executions/${executionId}/retry`, { key: org.key });
      expect(retried.status).toBe(409);
      expect(((await retried.json()) as any).error.message).toContain('retry window');
      const after = await h.waitForExecution(org.key, executionId, () => true);
      expect(after).toMatchObject({ status: 'failed', attempt: 1 });
    });
  });
});
