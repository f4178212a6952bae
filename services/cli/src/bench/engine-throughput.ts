import type { ProcessLayout } from '../process-layout';
import { describeCost, type ScenarioCost } from './cost-probe';
import type { EngineScenario } from './engine-scenarios';
import { fourNodeFlow } from './four-node-flow';
import { httpFlow, startQuoteServer } from './http-flow';
import { closedLoop, percentile } from './load';
import { processMemory } from './process-memory';
import { fmt, startBenchStack, BENCH_TASK_QUEUE as TASK_QUEUE } from './stack';
import { createTerminalWatcher } from './terminal-watcher';

/** The 4-node shape of `weft bench engine` (b), fed by POST /events. */
const FOUR_NODES = fourNodeFlow('bench four nodes', 'bench.tick');

interface Throughput {
  concurrency: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cost: ScenarioCost;
}

/** Everything `weft bench engine --json` prints, as one object. */
export interface EngineBenchResult {
  noop: Throughput[];
  flow: (Throughput & { acceptP50Ms: number; acceptP99Ms: number })[];
  /** (g) event → HTTP request to a local server → transform → terminal. */
  httpFlow: Throughput[];
  ratio: { concurrency: number; value: number }[];
  /** POST /events for an event no workflow listens to: the 202 path without a Temporal start. */
  acceptOnly: { p50Ms: number; p99Ms: number };
  fanout: { workflows: number; acceptedMs: number; allTerminalSeconds: number } | null;
  waiting: {
    executions: number;
    workerRssMiB: number;
    workerRssBeforeMiB: number;
    workerPeakMiB: number;
  } | null;
  apiRssMiB: number;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/**
 * `weft bench engine`: a fresh Temporal dev server, the project's PostgreSQL, a worker process and an
 * API process (or one process for both: `layout`), all on this machine. (a) raw Temporal no-op
 * workflows; (b) POST /events → a 4-node workflow → recorded terminal in PostgreSQL with its steps; (c) the ratio; (d) one event fanned out to N workflows; (e) worker memory
 * with N executions waiting on a delay. Each throughput scenario also reports CPU ms per execution
 * of every process and the Temporal server's persistence and matching figures, so a change is
 * judged by where the time went. `json`: the human lines go to stderr, one JSON object to stdout.
 */
export async function benchEngineCommand(options: {
  sqliteSynchronous?: 'NORMAL' | 'OFF';
  executions: number;
  concurrency: number[];
  fanout: number;
  waiting: number;
  json?: boolean;
  temporalConfig?: string[];
  layout?: ProcessLayout;
  external?: { address: string; metricsUrl?: string; pid?: number };
  /**
   * How (b) sees an execution end: its record in PostgreSQL turning terminal (default, what a user
   * sees), or the Temporal workflow's result (a long-poll per execution, as the bench did before).
   */
  observe?: 'database' | 'temporal';
  /** Which scenarios run (default: all). */
  scenarios?: readonly EngineScenario[];
  /** Worker processes of the split layout. */
  workers?: number;
}): Promise<EngineBenchResult> {
  const runs = (scenario: EngineScenario) => options.scenarios?.includes(scenario) ?? true;
  const out = options.json ? process.stderr : process.stdout;
  const say = (line: string) => out.write(`${line}\n`);
  const quotes = runs('g') ? await startQuoteServer() : undefined;
  const stack = await startBenchStack({
    sqliteSynchronous: options.sqliteSynchronous,
    temporalConfig: options.temporalConfig,
    layout: options.layout,
    workers: options.workers,
    external: options.external,
    // (g) calls a server on this machine: the SSRF guard opens loopback for it, and only it.
    extraEnv: quotes ? { SSRF_ALLOWLIST: '127.0.0.1' } : undefined,
  });
  const { call, client, admin, worker, api, probe } = stack;
  const watcher = createTerminalWatcher(admin);
  const org = { id: stack.organizationId };
  const result: EngineBenchResult = {
    noop: [],
    flow: [],
    httpFlow: [],
    ratio: [],
    acceptOnly: { p50Ms: Number.NaN, p99Ms: Number.NaN },
    fanout: null,
    waiting: null,
    apiRssMiB: 0,
  };
  try {
    await call('POST', '/workflows', FOUR_NODES);
    if (quotes) await call('POST', '/workflows', httpFlow('bench http flow', 'bench.quote', quotes.url));

    // Warm-up: the worker's first workflow tasks load the bundle.
    for (let i = 0; i < 20; i++) {
      const r = await call('POST', '/events', { event: 'bench.tick', payload: { total: i } });
      await client.workflow.getHandle(`exec-${r.execution_ids[0]}`).result();
    }

    say(`\nprocess layout: ${stack.layout}`);
    say(
      `${'scenario'.padEnd(44)} ${'conc'.padStart(4)} ${'exec/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`,
    );
    const row = (name: string, t: Throughput) => {
      say(
        `${name.padEnd(44)} ${String(t.concurrency).padStart(4)} ${fmt(t.perSecond).padStart(8)} ${fmt(t.p50Ms, 2).padStart(8)} ${fmt(t.p99Ms, 2).padStart(8)}`,
      );
      for (const line of describeCost(t.cost, t.perSecond)) say(line);
    };

    for (const c of runs('a') ? options.concurrency : []) {
      const before = await probe.begin();
      const r = await closedLoop(
        options.executions,
        c,
        async (i) => {
          await client.workflow.execute('noop', {
            workflowId: `noop-${c}-${i}-${Date.now()}`,
            taskQueue: TASK_QUEUE,
          });
        },
        { label: `(a) no-op c${c}` },
      );
      const t = { concurrency: c, perSecond: round(r.perSecond), p50Ms: round(r.p50), p99Ms: round(r.p99) };
      result.noop.push({ ...t, cost: await probe.end(before, options.executions) });
      row('(a) Temporal no-op workflow', result.noop.at(-1) as Throughput);
    }
    for (const c of runs('b') ? options.concurrency : []) {
      const acceptMs: number[] = [];
      const before = await probe.begin();
      const r = await closedLoop(
        options.executions,
        c,
        async (i) => {
          const t0 = performance.now();
          const accepted = await call('POST', '/events', {
            event: 'bench.tick',
            payload: { total: i % 200 },
          });
          acceptMs.push(performance.now() - t0);
          const id = accepted.execution_ids[0] as string;
          const status =
            options.observe === 'temporal'
              ? (await client.workflow.getHandle(`exec-${id}`).result()).status
              : await watcher.terminal(id);
          if (status !== 'success') throw new Error(`execution ended ${status}`);
        },
        { label: `(b) 4-node c${c}` },
      );
      const cost = await probe.end(before, options.executions);
      acceptMs.sort((a, b) => a - b);
      const t = {
        concurrency: c,
        perSecond: round(r.perSecond),
        p50Ms: round(r.p50),
        p99Ms: round(r.p99),
        acceptP50Ms: round(percentile(acceptMs, 50)),
        acceptP99Ms: round(percentile(acceptMs, 99)),
        cost,
      };
      result.flow.push(t);
      row('(b) POST /events → 4-node workflow → done', t);
      say(
        `    of which the 202 of POST /events: p50 ${fmt(t.acceptP50Ms, 2)} ms, p99 ${fmt(t.acceptP99Ms, 2)} ms`,
      );
    }
    for (const c of quotes ? options.concurrency : []) {
      if (!quotes) break;
      const callsBefore = quotes.calls();
      const before = await probe.begin();
      const r = await closedLoop(
        options.executions,
        c,
        async (i) => {
          const accepted = await call('POST', '/events', { event: 'bench.quote', payload: { total: i } });
          const status = await watcher.terminal(accepted.execution_ids[0] as string);
          if (status !== 'success') throw new Error(`execution ended ${status}`);
        },
        { label: `(g) event → HTTP → transform c${c}` },
      );
      const cost = await probe.end(before, options.executions);
      if (quotes.calls() - callsBefore !== options.executions) {
        throw new Error(
          `(g) the server got ${quotes.calls() - callsBefore} calls for ${options.executions} executions`,
        );
      }
      const t = {
        concurrency: c,
        perSecond: round(r.perSecond),
        p50Ms: round(r.p50),
        p99Ms: round(r.p99),
        cost,
      };
      result.httpFlow.push(t);
      row('(g) POST /events → HTTP request → transform', t);
    }
    for (const c of runs('a') && runs('b') ? options.concurrency : []) {
      const flow = result.flow.find((f) => f.concurrency === c)?.perSecond ?? 0;
      const raw = result.noop.find((f) => f.concurrency === c)?.perSecond ?? 1;
      result.ratio.push({ concurrency: c, value: round(flow / raw) });
      say(`(c) ratio (b)/(a) at concurrency ${c}: ${fmt(flow / raw, 2)}`);
    }

    // Our own share of the 202 (authentication, rate limit, the publish transaction, waiting-step
    // look-up), measured on an event nobody listens to: everything but the Temporal start.
    if (runs('f')) {
      const acceptOnly: number[] = [];
      await closedLoop(200, 1, async (i) => {
        const t0 = performance.now();
        await call('POST', '/events', { event: 'bench.unheard', payload: { total: i } });
        acceptOnly.push(performance.now() - t0);
      });
      acceptOnly.sort((a, b) => a - b);
      result.acceptOnly = {
        p50Ms: round(percentile(acceptOnly, 50)),
        p99Ms: round(percentile(acceptOnly, 99)),
      };
      say(
        `(f) 202 of POST /events without a Temporal start (no listener), concurrency 1: p50 ${fmt(result.acceptOnly.p50Ms, 2)} ms, p99 ${fmt(result.acceptOnly.p99Ms, 2)} ms`,
      );
    }

    if (runs('d') && options.fanout > 0) {
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
        const [done] =
          await admin`select count(*)::int as n from executions where organization_id = ${org.id} and event = 'bench.fanout' and status in ('success','partial','failed','cancelled')`;
        if ((done?.n ?? 0) >= accepted.workflows_triggered) break;
        if (performance.now() - t0 > 600_000) throw new Error('fan-out did not finish in 10 minutes');
        await new Promise((r) => setTimeout(r, 100));
      }
      result.fanout = {
        workflows: accepted.workflows_triggered,
        acceptedMs: round(acceptedMs),
        allTerminalSeconds: round((performance.now() - t0) / 1000),
      };
      say(
        `(d) fan-out to ${accepted.workflows_triggered} workflows: 202 in ${fmt(acceptedMs)} ms, all terminal after ${fmt(result.fanout.allTerminalSeconds, 2)} s`,
      );
    }

    if (runs('e') && options.waiting > 0) {
      const sleeper = await call('POST', '/workflows', {
        name: 'bench sleeper',
        trigger_type: 'manual',
        nodes: [{ id: 'nap', type: 'action.delay', config: { duration: '1h' } }],
      });
      const before = worker.pid ? processMemory(worker.pid) : undefined;
      await closedLoop(
        options.waiting,
        32,
        async () => {
          await call('POST', `/workflows/${sleeper.id}/execute`, { input: {} });
        },
        { label: '(e) starting waiting executions' },
      );
      for (;;) {
        const [waiting] =
          await admin`select count(*)::int as n from executions where organization_id = ${org.id} and workflow_id = ${sleeper.id} and status = 'waiting'`;
        if ((waiting?.n ?? 0) >= options.waiting) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const after = worker.pid ? processMemory(worker.pid) : undefined;
      result.waiting = {
        executions: options.waiting,
        workerRssMiB: round(after?.rssMiB ?? Number.NaN, 1),
        workerRssBeforeMiB: round(before?.rssMiB ?? Number.NaN, 1),
        workerPeakMiB: round(after?.peakMiB ?? Number.NaN, 1),
      };
      say(
        `(e) ${options.waiting} executions waiting on a delay: worker RSS ${fmt(result.waiting.workerRssMiB)} MiB (before ${fmt(result.waiting.workerRssBeforeMiB)} MiB, peak ${fmt(result.waiting.workerPeakMiB)} MiB)`,
      );
    }
    result.apiRssMiB = round((api.pid ? processMemory(api.pid)?.rssMiB : undefined) ?? Number.NaN, 1);
    say(`API server RSS ${fmt(result.apiRssMiB)} MiB`);
  } finally {
    await stack.stop();
    await quotes?.close();
  }
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  return result;
}
