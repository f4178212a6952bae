import { closedLoop, percentile } from './load';
import { processMemory } from './process-memory';
import { fmt, startBenchStack, BENCH_TASK_QUEUE as TASK_QUEUE } from './stack';

const FOUR_NODES = {
  name: 'bench four nodes',
  status: 'active',
  trigger_type: 'event',
  trigger_config: { event: 'bench.tick' },
  nodes: [
    {
      id: 'prepare',
      type: 'action.transform',
      config: { assignments: [{ key: 'total', value: '{{trigger.total}}' }] },
    },
    {
      id: 'check',
      type: 'action.condition',
      config: { conditions: [{ left: '{{nodes.prepare.total}}', operator: 'gt', right: '100' }] },
    },
    { id: 'big', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'big' }] } },
    { id: 'small', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'small' }] } },
  ],
  edges: [
    { source: 'prepare', target: 'check' },
    { source: 'check', target: 'big', source_handle: 'true' },
    { source: 'check', target: 'small', source_handle: 'false' },
  ],
};

/**
 * `weft bench engine`: a fresh Temporal dev server, the project's PostgreSQL, a worker process and an
 * API process, all on this machine. (a) raw Temporal no-op workflows; (b) POST /events → a 4-node
 * workflow → terminal; (c) the ratio; (d) one event fanned out to 500 workflows; (e) worker memory
 * with 1,000 executions waiting on a delay.
 */
export async function benchEngineCommand(options: {
  sqliteSynchronous?: 'NORMAL' | 'OFF';
  executions: number;
  concurrency: number[];
  fanout: number;
  waiting: number;
}) {
  const stack = await startBenchStack({ sqliteSynchronous: options.sqliteSynchronous });
  const { call, client, admin, worker, api } = stack;
  const org = { id: stack.organizationId };
  try {
    await call('POST', '/workflows', FOUR_NODES);

    // Warm-up: the worker's first workflow tasks load the bundle.
    for (let i = 0; i < 20; i++) {
      const r = await call('POST', '/events', { event: 'bench.tick', payload: { total: i } });
      await client.workflow.getHandle(`exec-${r.execution_ids[0]}`).result();
    }

    process.stdout.write(
      `\n${'scenario'.padEnd(44)} ${'conc'.padStart(4)} ${'exec/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}\n`,
    );
    const row = (name: string, c: number, r: { perSecond: number; p50: number; p99: number }) =>
      process.stdout.write(
        `${name.padEnd(44)} ${String(c).padStart(4)} ${fmt(r.perSecond).padStart(8)} ${fmt(r.p50, 2).padStart(8)} ${fmt(r.p99, 2).padStart(8)}\n`,
      );

    const raw: Record<number, number> = {};
    for (const c of options.concurrency) {
      const r = await closedLoop(options.executions, c, async (i) => {
        await client.workflow.execute('noop', {
          workflowId: `noop-${c}-${i}-${Date.now()}`,
          taskQueue: TASK_QUEUE,
        });
      });
      raw[c] = r.perSecond;
      row('(a) Temporal no-op workflow', c, r);
    }
    const flow: Record<number, number> = {};
    for (const c of options.concurrency) {
      const acceptMs: number[] = [];
      const r = await closedLoop(options.executions, c, async (i) => {
        const t0 = performance.now();
        const accepted = await call('POST', '/events', { event: 'bench.tick', payload: { total: i % 200 } });
        acceptMs.push(performance.now() - t0);
        const result = await client.workflow.getHandle(`exec-${accepted.execution_ids[0]}`).result();
        if (result.status !== 'success') throw new Error(`execution ended ${result.status}`);
      });
      flow[c] = r.perSecond;
      row('(b) POST /events → 4-node workflow → done', c, r);
      acceptMs.sort((a, b) => a - b);
      process.stdout.write(
        `    of which the 202 of POST /events: p50 ${fmt(percentile(acceptMs, 50), 2)} ms, p99 ${fmt(percentile(acceptMs, 99), 2)} ms\n`,
      );
    }
    for (const c of options.concurrency) {
      process.stdout.write(
        `(c) ratio (b)/(a) at concurrency ${c}: ${fmt((flow[c] ?? 0) / (raw[c] ?? 1), 2)}\n`,
      );
    }

    // (d) fan-out
    for (let i = 0; i < options.fanout; i++) {
      await call('POST', '/workflows', {
        ...FOUR_NODES,
        name: `fan ${i}`,
        trigger_config: { event: 'bench.fanout' },
      });
    }
    const t0 = performance.now();
    const accepted = await call('POST', '/events', { event: 'bench.fanout', payload: { total: 500 } });
    const acceptedMs = performance.now() - t0;
    for (;;) {
      const [row] =
        await admin`select count(*)::int as n from executions where organization_id = ${org.id} and event = 'bench.fanout' and status in ('success','partial','failed','cancelled')`;
      if ((row?.n ?? 0) >= accepted.workflows_triggered) break;
      if (performance.now() - t0 > 600_000) throw new Error('fan-out did not finish in 10 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    process.stdout.write(
      `(d) fan-out to ${accepted.workflows_triggered} workflows: 202 in ${fmt(acceptedMs)} ms, all terminal after ${fmt((performance.now() - t0) / 1000, 2)} s\n`,
    );

    // (e) executions parked on a delay
    const sleeper = await call('POST', '/workflows', {
      name: 'bench sleeper',
      trigger_type: 'manual',
      nodes: [{ id: 'nap', type: 'action.delay', config: { duration: '1h' } }],
    });
    const before = worker.pid ? processMemory(worker.pid) : undefined;
    await closedLoop(options.waiting, 32, async () => {
      await call('POST', `/workflows/${sleeper.id}/execute`, { input: {} });
    });
    for (;;) {
      const [row] =
        await admin`select count(*)::int as n from executions where organization_id = ${org.id} and workflow_id = ${sleeper.id} and status = 'waiting'`;
      if ((row?.n ?? 0) >= options.waiting) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = worker.pid ? processMemory(worker.pid) : undefined;
    process.stdout.write(
      `(e) ${options.waiting} executions waiting on a delay: worker RSS ${fmt(after?.rssMiB ?? Number.NaN)} MiB (before ${fmt(before?.rssMiB ?? Number.NaN)} MiB, peak ${fmt(after?.peakMiB ?? Number.NaN)} MiB)\n`,
    );
    const apiMemory = api.pid ? processMemory(api.pid) : undefined;
    process.stdout.write(`API server RSS ${fmt(apiMemory?.rssMiB ?? Number.NaN)} MiB\n`);
  } finally {
    await stack.stop();
  }
}
