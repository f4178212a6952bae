import type { Counter, Started } from './load';
import type { ChaosStack } from './stack';

/** One line of the ledger: what should be, what is, and whether that is right. */
export interface LedgerRow {
  check: string;
  expected: string;
  actual: string;
  ok: boolean;
}

/**
 * The one ledger every case ends with:
 * - every accepted execution ended `success`;
 * - every side-effect key reached the counting server at least as often as the graph needs (the
 *   flaky node twice) and no key appears that no step owns: a retried or replayed step sends the
 *   same `Idempotency-Key`, so the receiver applies it once (DESIGN §12.1). Requests beyond the
 *   minimum are re-sends of one key — reported, not failed, as the promise is effectively-once;
 * - execution_steps holds exactly the graph's rows per execution, all `completed` (a missing row
 *   is a lost step, an extra row a duplicated one);
 * - webhook_deliveries has one succeeded row per completed execution and the receiver got every
 *   one of them, and nothing else.
 */
export async function computeLedger(input: {
  stack: ChaosStack;
  started: Started[];
  statuses: Map<string, string>;
  counter: Counter;
  hits: Map<string, number>;
  webhookId: string;
}): Promise<LedgerRow[]> {
  const { stack, started, statuses, counter, hits } = input;
  const rows: LedgerRow[] = [];
  const add = (check: string, expected: string, actual: string, ok: boolean) =>
    rows.push({ check, expected, actual, ok });

  const byStatus = new Map<string, number>();
  for (const e of started) {
    const s = statuses.get(e.id) ?? 'unknown';
    byStatus.set(s, (byStatus.get(s) ?? 0) + 1);
  }
  const success = byStatus.get('success') ?? 0;
  add(
    'executions ended success',
    `${started.length}`,
    [...byStatus].map(([s, n]) => `${s} ${n}`).join(', '),
    success === started.length,
  );

  // Side effects at the counting server.
  const expectedKeys = new Map<string, { path: string; minRequests: number }>();
  for (const e of started)
    for (const f of e.shape.effects)
      expectedKeys.set(`${e.id}:${f.suffix}`, { path: f.path, minRequests: f.minRequests });
  let missing = 0;
  let short = 0;
  let resent = 0;
  let requests = 0;
  let minimum = 0;
  for (const [key, want] of expectedKeys) {
    const got = counter.byKey.get(key)?.requests ?? 0;
    requests += got;
    minimum += want.minRequests;
    if (got === 0) missing++;
    else if (got < want.minRequests) short++;
    else if (got > want.minRequests) resent++;
  }
  const unknown = [...counter.byKey.keys()].filter((k) => !expectedKeys.has(k)).length;
  add(
    'side-effect keys applied (distinct keys seen)',
    `${expectedKeys.size}`,
    `${expectedKeys.size - missing}`,
    missing === 0,
  );
  add('keys with fewer requests than needed', '0', `${short}`, short === 0);
  add('keys no step owns (a second key for one step)', '0', `${unknown}`, unknown === 0);
  add('requests without Idempotency-Key', '0', `${counter.withoutKey}`, counter.withoutKey === 0);
  add(
    'requests at the counting server (re-sends of one key)',
    `${minimum} (minimum)`,
    `${requests} (${resent} keys re-sent, applied once)`,
    true,
  );

  // Step rows.
  const ids = started.map((e) => e.id);
  const stepRows = await stack.admin<
    { execution_id: string; node_id: string; iteration: number; status: string }[]
  >`
    select execution_id, node_id, iteration, status from execution_steps where execution_id = any(${ids}::uuid[])`;
  const stepsOf = new Map<string, string[]>();
  let notCompleted = 0;
  for (const r of stepRows) {
    const list = stepsOf.get(r.execution_id) ?? [];
    list.push(r.iteration >= 0 ? `${r.node_id}:${r.iteration}` : r.node_id);
    stepsOf.set(r.execution_id, list);
    if (r.status !== 'completed') notCompleted++;
  }
  let lost = 0;
  let extra = 0;
  let expectedSteps = 0;
  for (const e of started) {
    const have = stepsOf.get(e.id) ?? [];
    expectedSteps += e.shape.steps.length;
    lost += e.shape.steps.filter((s) => !have.includes(s)).length;
    extra += have.length - have.filter((s, i) => e.shape.steps.includes(s) && have.indexOf(s) === i).length;
  }
  add('step rows', `${expectedSteps}`, `${stepRows.length}`, stepRows.length === expectedSteps);
  add('steps lost / duplicated or unexpected', '0 / 0', `${lost} / ${extra}`, lost === 0 && extra === 0);
  add('step rows not completed', '0', `${notCompleted}`, notCompleted === 0);

  // Outbound deliveries.
  const deliveries = await stack.admin<{ id: string; status: string }[]>`
    select id, status from webhook_deliveries where webhook_id = ${input.webhookId}`;
  const succeeded = deliveries.filter((d) => d.status === 'succeeded').length;
  const received = deliveries.filter((d) => (hits.get(d.id) ?? 0) > 0).length;
  const strangers = [...hits.keys()].filter((id) => !deliveries.some((d) => d.id === id)).length;
  const duplicates = [...hits.values()].filter((n) => n > 1).length;
  add(
    'delivery rows (one per completed execution)',
    `${success}`,
    `${deliveries.length}`,
    deliveries.length === success,
  );
  add('delivery rows succeeded', `${deliveries.length}`, `${succeeded}`, succeeded === deliveries.length);
  add(
    'delivery rows the receiver got',
    `${deliveries.length}`,
    `${received}`,
    received === deliveries.length,
  );
  add('receiver hits with no delivery row', '0', `${strangers}`, strangers === 0);
  add('deliveries received more than once (same id)', '-', `${duplicates}`, true);
  return rows;
}

/** Prints the ledger as a table and answers whether every line is right. */
export function printLedger(title: string, rows: LedgerRow[], say: (line: string) => void): boolean {
  const width = Math.max(...rows.map((r) => r.check.length), 10);
  const ew = Math.max(...rows.map((r) => r.expected.length), 8);
  say(`\nledger — ${title}`);
  say(`${'check'.padEnd(width)}  ${'expected'.padEnd(ew)}  actual`);
  for (const r of rows)
    say(`${r.check.padEnd(width)}  ${r.expected.padEnd(ew)}  ${r.actual}${r.ok ? '' : '   ✗'}`);
  const pass = rows.every((r) => r.ok);
  say(`\n${pass ? 'PASS' : 'FAIL'}: ${title}`);
  return pass;
}
