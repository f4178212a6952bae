import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listen } from './helpers';

// The API and the worker in one process, as `weft up` runs them: a code node used to run on that
// process's event loop, so one organization's endless loop stalled /healthz and everyone's executions.

let h: EngineHarness;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  h = await createEngineHarness();
  server = await listen(h.app);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
});

const TERMINAL = ['success', 'partial', 'failed', 'cancelled'];
const code = (id: string, config: Record<string, unknown>) => ({ id, type: 'action.code', config });

async function createWorkflow(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/api/v1/workflows', {
    key,
    body: { trigger_type: 'manual', status: 'active', edges: [], ...body },
  });
  const json = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.id;
}

async function execute(
  key: string,
  workflowId: string,
  input: Record<string, unknown> = {},
): Promise<string> {
  const res = await h.request('POST', `/api/v1/workflows/${workflowId}/execute`, { key, body: { input } });
  const json = (await res.json()) as { execution_id: string };
  expect(res.status, JSON.stringify(json)).toBe(202);
  return json.execution_id;
}

const finished = (key: string, id: string) =>
  h.waitForExecution(key, id, (execution) => TERMINAL.includes(execution.status), 120_000);

/** GET /healthz over a real socket every 20 ms until `stop` resolves; the latency of each answer. */
async function pollHealth(stop: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  while (!stopped) {
    const started = performance.now();
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const took = performance.now() - started;
    latencies.push(took);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 20 - took)));
  }
  return latencies;
}

/** One short execution of the neighbour's workflow; how long it took, start to end. */
async function runNeighbour(key: string, workflowId: string, n: number): Promise<number> {
  const started = performance.now();
  const execution = await finished(key, await execute(key, workflowId, { n }));
  expect(execution.status).toBe('success');
  expect(execution.steps.find((s: { node_id: string }) => s.node_id === 'double').output).toBe(2 * n);
  return Math.round(performance.now() - started);
}

const describeLatencies = (sorted: number[]) =>
  `${sorted.length} requests, p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`;

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

it("keeps /healthz and another organization's executions fast while one organization's code spins", async () => {
  const hostile = await h.createOrg('Hostile');
  const neighbour = await h.createOrg('Neighbour');
  const spinning = await createWorkflow(hostile.key, {
    name: 'spin in a parallel loop',
    nodes: [
      {
        id: 'each',
        type: 'action.loop',
        config: { items: '{{trigger.items}}', mode: 'parallel', concurrency: 4 },
      },
      code('spin', { code: 'while (true) {}', timeout_ms: 2_000 }),
    ],
    edges: [{ source: 'each', target: 'spin', source_handle: 'each' }],
  });
  const stuck = await createWorkflow(hostile.key, {
    name: 'one built-in call QuickJS cannot interrupt',
    nodes: [
      code('stuck', {
        code: 'return Array.prototype.indexOf.call({ length: 2 ** 53 }, 1)',
        timeout_ms: 2_000,
      }),
    ],
  });
  const doubling = await createWorkflow(neighbour.key, {
    name: 'short',
    nodes: [code('double', { code: 'return input.trigger.n * 2' })],
  });
  // Warm: the sandbox threads are started and the neighbour's workflow has run once.
  await runNeighbour(neighbour.key, doubling, 0);

  // The same probes with no hostile code: what this (shared, busy) machine gives anyway.
  const calmRuns: number[] = [];
  const calmRunning = (async () => {
    for (let n = 1; n <= 5; n++) calmRuns.push(await runNeighbour(neighbour.key, doubling, n));
  })();
  const calm = (await pollHealth(calmRunning)).sort((a, b) => a - b);

  const hostileRuns = [
    await execute(hostile.key, spinning, { items: [1, 2, 3, 4] }),
    await execute(hostile.key, stuck),
  ];
  let hostileRunning = true;
  const hostileDone = Promise.all(hostileRuns.map((id) => finished(hostile.key, id))).finally(() => {
    hostileRunning = false;
  });
  const health = pollHealth(hostileDone);
  // The neighbour keeps running short executions for as long as the hostile ones run.
  const neighbourRuns: number[] = [];
  for (let n = 1; hostileRunning; n++) neighbourRuns.push(await runNeighbour(neighbour.key, doubling, n));
  const [spun, stuckRun] = await hostileDone;
  const latencies = (await health).sort((a, b) => a - b);

  // The hostile code ended the way its author is told: a timeout, not a stall or an engine error.
  // `partial`: a failed step does not stop an execution unless its node says so (on_failure).
  expect(spun.status).toBe('partial');
  const spinCodes = spun.steps
    .filter((s: { node_id: string }) => s.node_id === 'spin')
    .map((s: any) => s.error?.code);
  expect(spinCodes.length).toBeGreaterThan(0);
  expect(new Set(spinCodes)).toEqual(new Set(['code_timeout']));
  expect(stuckRun.status).toBe('partial');
  expect(stuckRun.steps.find((s: { node_id: string }) => s.node_id === 'stuck').error.code).toBe(
    'code_timeout',
  );

  console.log(
    `/healthz, no hostile code: ${describeLatencies(calm)}; neighbour executions ${calmRuns.join(', ')} ms`,
  );
  console.log(
    `/healthz, hostile code running: ${describeLatencies(latencies)}; neighbour executions ${neighbourRuns.join(', ')} ms`,
  );
  expect(latencies.length).toBeGreaterThan(50);
  // The old sandbox held the event loop for each 2 s spin, and for good on the 2^53 call. The
  // bound allows for what this machine gives with no hostile code at all (it is shared and busy).
  const calmP99 = percentile(calm, 0.99);
  expect(percentile(latencies, 0.99)).toBeLessThan(Math.max(200, 2 * calmP99));
  // The neighbour's code never waited for a thread the hostile organization held (2 s each).
  expect(neighbourRuns.length).toBeGreaterThanOrEqual(2);
  // (The median: on a shared machine any single execution can be slow for reasons of its own.)
  const median = [...neighbourRuns].sort((a, b) => a - b)[Math.floor(neighbourRuns.length / 2)] ?? 0;
  expect(median).toBeLessThan(Math.max(...calmRuns) + 2_000);
}, 180_000);
