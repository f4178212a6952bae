import { computeLedger, type LedgerRow, printLedger } from './ledger';
import { apiCaller, startCounter, startLoad, startReceiver, waitQuiescent } from './load';
import { type ChaosStack, startChaosStack } from './stack';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const CHAOS_CASES = ['temporal-kill', 'worker-api-kill', 'two-workers', 'postgres-stop'] as const;
export type ChaosCase = (typeof CHAOS_CASES)[number];

/** A fault: applied a moment after the load started; may add its own lines to the ledger. */
type Fault = (stack: ChaosStack, say: (line: string) => void) => Promise<LedgerRow[]>;

const FAULTS: Record<ChaosCase, Fault> = {
  'temporal-kill': async (stack, say) => {
    say('SIGKILL the Temporal server');
    await stack.faults.killTemporal();
    await sleep(5_000);
    const t0 = performance.now();
    await stack.faults.startTemporal();
    say(`Temporal restarted on the same state in ${Math.round(performance.now() - t0)} ms`);
    return [];
  },
  'worker-api-kill': async (stack, say) => {
    say('SIGKILL the worker and the API together');
    await Promise.all([stack.faults.killWorkers(), stack.faults.killApi()]);
    await sleep(3_000);
    stack.faults.startWorkers();
    await stack.faults.startApi();
    say('worker and API restarted');
    return [];
  },
  // Two workers poll one task queue from the start; the fault is their competition itself.
  'two-workers': async () => [],
  'postgres-stop': async (stack, say) => {
    const call = apiCaller(stack);
    say('stop PostgreSQL for 30 s');
    await stack.faults.stopPostgres();
    const until = Date.now() + 30_000;
    const readyz: { status: number; ms: number }[] = [];
    const writes: { status: number; ms: number; code: string }[] = [];
    while (Date.now() < until) {
      const t0 = performance.now();
      let status = 0;
      try {
        status = (await fetch(`${stack.base}/readyz`, { signal: AbortSignal.timeout(20_000) })).status;
      } catch {
        status = 0;
      }
      readyz.push({ status, ms: performance.now() - t0 });
      const w = await call('POST', '/events', { event: 'chaos.outage', payload: {} }, 20_000);
      const error = w.json.error as { code?: string } | undefined;
      writes.push({ status: w.status, ms: w.ms, code: error?.code ?? String(w.json.raw ?? '').slice(0, 40) });
      await sleep(2_000);
    }
    await stack.faults.startPostgres();
    say('PostgreSQL started again');
    const summary = (list: { status: number }[]) => {
      const n = new Map<number, number>();
      for (const x of list) n.set(x.status, (n.get(x.status) ?? 0) + 1);
      return [...n].map(([s, k]) => `${s || 'no answer'}×${k}`).join(', ');
    };
    const maxMs = (list: { ms: number }[]) => Math.round(Math.max(0, ...list.map((x) => x.ms)));
    const codes = [...new Set(writes.map((w) => w.code))].join(', ');
    return [
      {
        check: 'outage: GET /readyz answers',
        expected: '503 each',
        actual: `${summary(readyz)}; slowest ${maxMs(readyz)} ms`,
        ok: readyz.every((r) => r.status === 503) && maxMs(readyz) < 15_000,
      },
      {
        check: 'outage: POST /events (a write) answers',
        expected: '503 envelope each',
        actual: `${summary(writes)} [${codes}]; slowest ${maxMs(writes)} ms`,
        ok: writes.every((w) => w.status === 503 && w.code !== '') && maxMs(writes) < 15_000,
      },
    ];
  },
};

/**
 * `weft chaos <case>`: a fresh stack, a mixed load of `executions` executions (HTTP side effects to
 * a counting server, a delay, a wait resolved by a later event, a loop, a node that fails once and
 * succeeds on retry, outbound deliveries), the case's fault a moment in, then the ledger. Exit
 * code 1 when any ledger line is wrong.
 */
export async function chaosCommand(options: {
  case: ChaosCase;
  executions: number;
  temporal: 'dev' | 'cluster';
}): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const stack = await startChaosStack({
    workers: options.case === 'two-workers' ? 2 : 1,
    temporal: options.temporal,
  });
  const counter = await startCounter();
  const receiver = await startReceiver();
  try {
    const { started, webhookId } = await startLoad(stack, counter, receiver.url, options.executions);
    say(`${started.length} executions accepted`);
    await sleep(1_500);
    // How much the fault hits: executions not yet terminal as it strikes.
    const [flight] = await stack.admin<{ n: number }[]>`
      select count(*)::int as n from executions
      where organization_id = ${stack.organizationId} and status not in ('success', 'partial', 'failed', 'cancelled')`;
    say(`${flight?.n ?? 0} of ${started.length} executions in flight as the fault strikes`);
    const faultRows = await FAULTS[options.case](stack, say);
    faultRows.unshift({
      check: 'executions in flight at the fault',
      expected: '-',
      actual: `${flight?.n ?? 0}`,
      ok: true,
    });
    const { statuses, seconds } = await waitQuiescent(stack, started, 600_000, say);
    say(`quiescent after ${seconds.toFixed(1)} s`);
    // Deliveries run after completion: give them until every row is settled (or a minute).
    const t0 = Date.now();
    while (Date.now() - t0 < 60_000) {
      const [row] = await stack.admin<{ open: number }[]>`
        select count(*) filter (where status <> 'succeeded')::int as open from webhook_deliveries
        where webhook_id = ${webhookId}`;
      if ((row?.open ?? 0) === 0) break;
      await sleep(1_000);
    }
    await sleep(1_000);
    const deaths = stack.deaths();
    faultRows.push({
      check: 'services that died on their own',
      expected: 'none',
      actual: deaths.length === 0 ? 'none' : deaths.join('; '),
      ok: deaths.length === 0,
    });
    const rows = await computeLedger({ stack, started, statuses, counter, hits: receiver.hits, webhookId });
    const pass = printLedger(
      `chaos ${options.case} (Temporal ${options.temporal === 'cluster' ? 'temporal-server on PostgreSQL' : 'dev server'}), ${started.length} executions`,
      [...faultRows, ...rows],
      say,
    );
    if (!pass) process.exitCode = 1;
  } finally {
    counter.close();
    receiver.close();
    await stack.stop();
  }
}
