import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingServer, startCountingServer } from './support';

/**
 * A short HTTP request's first attempt runs as a local activity, in the worker that holds the
 * workflow task, when that worker has a place for it (temporal/activities/local-call-gate.ts): no
 * task-queue trip before or after it. A local call holds its workflow task slot until the server
 * answers, so the places are capped in all and per organization; past the caps, and for every
 * retry, the call is a regular activity. Issue 24 first tried local activities without the caps:
 * one organization's slow server then held up another organization's run (4.4 s with 50 calls
 * open). Its answer is recorded before the activity returns (durability.test.ts kills a worker
 * between the answer and the task's completion). Checked on the real engine: the history Temporal
 * records, the step the user sees, a failed call's answer, a retry, and a neighbour's run next to
 * slow calls.
 */
let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: CountingServer;
const LATENCY_MS = 150;

async function api(method: string, path: string, body?: unknown) {
  const res = await h.request(method, `/api/v1${path}`, { key: org.key, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function runHttp(config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const created = await api('POST', '/workflows', {
    name: `local ${Math.random()}`,
    trigger_type: 'manual',
    status: 'active',
    nodes: [
      { id: 'call', type: 'action.http_request', config: { method: 'GET', ...config }, ...extra },
      {
        id: 'shape',
        type: 'action.transform',
        config: { assignments: [{ key: 'path', value: '{{nodes.call.body.path}}' }] },
      },
    ],
    edges: [{ source: 'call', target: 'shape' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const started = await api('POST', `/workflows/${created.body.id}/execute`, { input: {} });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const execution = await h.waitForExecution(org.key, started.body.execution_id);
  // The record turns terminal before the workflow task that wrote it completes: wait for the run.
  const handle = h.client.workflow.getHandle(`exec-${execution.id}`);
  await handle.result();
  const history = await handle.fetchHistory();
  // Each event carries the attributes of its type only: `markerRecordedEventAttributes`, …
  const types = (history.events ?? []).flatMap((e) =>
    Object.keys(e).filter((k) => k.endsWith('EventAttributes') && e[k as keyof typeof e]),
  );
  return { execution, types };
}

const has = (types: string[], name: string) => types.includes(name);

beforeAll(async () => {
  server = await startCountingServer(() => LATENCY_MS);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.server.close();
});

describe('short HTTP requests', () => {
  it('run in the worker (a local activity, no activity task), and the step shows the call and how long it took', async () => {
    const before = server.byPath('/short');
    const { execution, types } = await runHttp({ url: `${server.baseUrl}/short` });
    expect(execution.status).toBe('success');
    expect(server.byPath('/short') - before).toBe(1);
    // Its step report is a local activity too: no activity task at all.
    expect(has(types, 'activityTaskScheduledEventAttributes')).toBe(false);
    const call = execution.steps.find((s: any) => s.node_id === 'call');
    const shape = execution.steps.find((s: any) => s.node_id === 'shape');
    expect(call.output.body.path).toBe('/short');
    expect(shape.output.path).toBe('/short');
    expect(call.duration_ms).toBeGreaterThanOrEqual(LATENCY_MS);
  });

  it('a request allowed more than 30 s is an activity task from the start', async () => {
    const { execution, types } = await runHttp({ url: `${server.baseUrl}/long`, timeout_ms: 60_000 });
    expect(execution.status).toBe('success');
    expect(has(types, 'activityTaskScheduledEventAttributes')).toBe(true);
  });

  it("a failed call's answer reaches its step", async () => {
    server.failing.add('/refused');
    try {
      const { execution } = await runHttp({ url: `${server.baseUrl}/refused` }, { on_failure: 'continue' });
      expect(execution.status).toBe('partial');
      const call = execution.steps.find((s: any) => s.node_id === 'call');
      expect(call.status).toBe('failed');
      expect(call.error.code).toBe('http_status');
      expect(call.error.details?.status).toBe(400);
      expect(call.error.details?.body).toEqual({ error: 'not yet' });
    } finally {
      server.failing.delete('/refused');
    }
  });

  it('a first attempt that fails with a 503 is retried as a regular activity, once', async () => {
    const { createServer } = await import('node:http');
    let calls = 0;
    const flaky = createServer((req, res) => {
      calls++;
      req.resume();
      res.writeHead(calls === 1 ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: '/flaky', attempt: calls }));
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    const address = flaky.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const { execution, types } = await runHttp({ url: `http://127.0.0.1:${port}/flaky` });
      expect(execution.status, JSON.stringify(execution.steps)).toBe('success');
      expect(calls).toBe(2);
      expect(has(types, 'activityTaskScheduledEventAttributes')).toBe(true);
      expect(execution.steps.find((s: any) => s.node_id === 'call').output.body.attempt).toBe(2);
    } finally {
      flaky.close();
    }
  });
});

describe("one organization's slow calls and another organization", () => {
  it("50 calls held open by a slow server do not hold up another organization's run", async () => {
    const slow = await startCountingServer(() => 4_000);
    const url = `${slow.baseUrl}/slow`;
    try {
      const flooder = await h.createOrg('Slow caller');
      const created = await h.request('POST', '/api/v1/workflows', {
        key: flooder.key,
        body: {
          name: 'slow',
          trigger_type: 'manual',
          status: 'active',
          nodes: [{ id: 'call', type: 'action.http_request', config: { method: 'GET', url } }],
        },
      });
      const slowFlow = (await created.json()) as { id: string };
      const started = await Promise.all(
        Array.from({ length: 50 }, () =>
          h.request('POST', `/api/v1/workflows/${slowFlow.id}/execute`, {
            key: flooder.key,
            body: { input: {} },
          }),
        ),
      );
      expect(started.every((r) => r.status === 202)).toBe(true);
      // While the 50 calls wait on the server, the neighbour's run finishes in well under their 4 s.
      const t0 = Date.now();
      const { execution } = await runHttp({ url: `${server.baseUrl}/neighbour` });
      expect(execution.status).toBe('success');
      expect(Date.now() - t0).toBeLessThan(3_000);
      // The flood was real: the slow server held calls open meanwhile (35 of the 50 in a loaded
      // full run, all 50 alone; none would mean the neighbour raced an empty queue).
      expect(slow.inFlight()).toBeGreaterThanOrEqual(10);
    } finally {
      slow.server.closeAllConnections();
      slow.server.close();
    }
  }, 60_000);
});
