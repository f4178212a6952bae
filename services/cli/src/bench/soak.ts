import { readdirSync, readFileSync } from 'node:fs';
import { postmasterPid } from '@weft/db';
import { dataPath } from '../project';
import { fourNodeFlow } from './four-node-flow';
import { percentile } from './load';
import { progressReporter } from './progress';
import { fmt, startBenchStack } from './stack';
import { createTerminalWatcher } from './terminal-watcher';

/** The 4-node shape of `weft bench engine` (b), fed by POST /events. */
const FOUR_NODES = fourNodeFlow('soak four nodes', 'soak.tick');
/** Run through POST /workflows/{id}/execute: one step. */
const MANUAL = {
  name: 'soak manual',
  trigger_type: 'manual',
  nodes: [{ id: 'only', type: 'action.transform', config: { assignments: [{ key: 'x', value: '1' }] } }],
};
/** A durable timer of 2 s then a step: executions that wait (not part of the completion latency). */
const NAPPER = {
  name: 'soak napper',
  trigger_type: 'manual',
  nodes: [
    { id: 'nap', type: 'action.delay', config: { duration: '2s' } },
    { id: 'after', type: 'action.transform', config: { assignments: [{ key: 'y', value: '2' }] } },
  ],
  edges: [{ source: 'nap', target: 'after' }],
};

type Role = 'api' | 'worker' | 'temporal' | 'postgres';

interface MinuteRow {
  minute: number;
  started: number;
  accepted: number;
  completed: number;
  errors: number;
  acceptP50Ms: number;
  acceptP99Ms: number;
  doneP50Ms: number;
  doneP99Ms: number;
  /** Memory (PSS, MiB) of each process tree at the end of the minute. */
  pssMiB: Partial<Record<Role, number>>;
}

export interface SoakBenchResult {
  rate: number;
  minutes: MinuteRow[];
  errors: number;
  unfinished: number;
  pssFirstLastMiB: Partial<Record<Role, { first: number; last: number }>>;
  acceptP99DriftMs: number;
  doneP99DriftMs: number;
}

/** Proportional set size of one process (MiB), from /proc (Linux 4.14+); undefined once it is gone. */
function processPssMiB(pid: number): number | undefined {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(rollup.match(/^Pss:\s+(\d+) kB/m)?.[1] ?? Number.NaN) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * Memory of a process and all its descendants (MiB), as PSS: pages shared between them count once
 * in total. A sum of RSS would count PostgreSQL's shared buffers once per backend that touched
 * them (measured: 760 MiB of RSS for a 127 MiB PSS tree of 19 processes) and grow as backends warm
 * up, hiding or faking a leak.
 */
function treePssMiB(rootPid: number): number | undefined {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // ended meanwhile
    }
  }
  const root = processPssMiB(rootPid);
  if (root === undefined) return undefined;
  let total = root;
  const stack = [...(parents.get(rootPid) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    total += processPssMiB(pid) ?? 0;
    stack.push(...(parents.get(pid) ?? []));
  }
  return total;
}

/** The Temporal dev server: a child of this process whose command line names temporal. */
function temporalPid(): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      if (/temporal/.test(readFileSync(`/proc/${name}/cmdline`, 'utf8'))) return Number(name);
    } catch {
      // ended meanwhile
    }
  }
  return undefined;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const p = (values: number[], q: number) =>
  round(
    percentile(
      [...values].sort((a, b) => a - b),
      q,
    ),
  );

/**
 * `weft bench soak`: a steady open-loop mix (60 % POST /events → 4-node workflow, 30 % manual
 * one-step runs, 10 % runs with a 2 s timer) at `rate` starts per second for `minutes`. Each minute:
 * Memory (PSS) of API, worker, Temporal server and PostgreSQL (process trees), errors, p50/p99 of the 202s
 * and of execution completion (recorded terminal in PostgreSQL; the timer runs left out). Then
 * first vs last minute: flat memory means no leak, errors should be 0, p99 should not drift.
 */
export async function benchSoakCommand(options: {
  minutes: number;
  rate: number;
  json?: boolean;
}): Promise<SoakBenchResult> {
  const out = options.json ? process.stderr : process.stdout;
  const say = (line: string) => out.write(`${line}\n`);
  // 30 requests a second for half an hour: the services' request logs go to stderr, off the figures.
  const stack = await startBenchStack();
  const { call, client, admin } = stack;
  const watcher = createTerminalWatcher(admin, 20);
  const pids: Partial<Record<Role, number>> = {
    api: stack.api.pid,
    worker: stack.worker.pid,
    temporal: temporalPid(),
    postgres: postmasterPid(dataPath(stack.env, 'postgres')),
  };
  // One process for both in the combined layout: measured (and printed) once, as `api`.
  const combined = stack.api.pid === stack.worker.pid;
  const roles = (Object.keys(pids) as Role[]).filter(
    (r) => pids[r] !== undefined && !(combined && r === 'worker'),
  );
  const pssNow = () =>
    Object.fromEntries(
      roles.map((r) => [r, round(treePssMiB(pids[r] as number) ?? Number.NaN, 1)]),
    ) as Partial<Record<Role, number>>;
  const rows: MinuteRow[] = [];
  let inFlight = 0;
  let unfinished = 0;
  try {
    await call('POST', '/workflows', FOUR_NODES);
    const manual = await call('POST', '/workflows', MANUAL);
    const napper = await call('POST', '/workflows', NAPPER);
    for (let i = 0; i < 20; i++) {
      const r = await call('POST', '/events', { event: 'soak.tick', payload: { total: i } });
      await client.workflow.getHandle(`exec-${r.execution_ids[0]}`).result();
    }

    const buckets = new Map<number, { started: number; accept: number[]; done: number[]; errors: number }>();
    const started = performance.now();
    const minuteOf = (t: number) => Math.floor((t - started) / 60_000);
    const bucket = (t = performance.now()) => {
      const m = minuteOf(t);
      let b = buckets.get(m);
      if (!b) {
        b = { started: 0, accept: [], done: [], errors: 0 };
        buckets.set(m, b);
      }
      return b;
    };
    const launch = async (i: number) => {
      inFlight++;
      bucket().started++;
      const t0 = performance.now();
      try {
        const kind = i % 10;
        const accepted =
          kind < 6
            ? await call('POST', '/events', { event: 'soak.tick', payload: { total: i % 200 } })
            : await call('POST', `/workflows/${kind < 9 ? manual.id : napper.id}/execute`, { input: {} });
        bucket().accept.push(performance.now() - t0);
        const id = accepted.execution_ids?.[0] ?? accepted.execution_id;
        const status = await watcher.terminal(id);
        if (status !== 'success') throw new Error(`execution ended ${status}`);
        if (kind < 9) bucket().done.push(performance.now() - t0);
      } catch (error) {
        const b = bucket();
        if (b.errors++ === 0) process.stderr.write(`soak error: ${(error as Error).message}\n`);
      } finally {
        inFlight--;
      }
    };

    say(`\nsoak: ${options.rate} executions/s for ${options.minutes} min, layout ${stack.layout}`);
    const rssHead = roles
      .map((r) => `${combined && r === 'api' ? 'api+worker' : r} PSS MiB`.padStart(15))
      .join('');
    say(
      `${'min'.padStart(3)} ${'started'.padStart(8)} ${'errors'.padStart(6)} ${'202 p50'.padStart(8)} ${'202 p99'.padStart(8)} ${'done p50'.padStart(9)} ${'done p99'.padStart(9)}${rssHead}`,
    );
    const report = (minute: number) => {
      const b = buckets.get(minute) ?? { started: 0, accept: [], done: [], errors: 0 };
      const row: MinuteRow = {
        minute: minute + 1,
        started: b.started,
        accepted: b.accept.length,
        completed: b.done.length,
        errors: b.errors,
        acceptP50Ms: p(b.accept, 50),
        acceptP99Ms: p(b.accept, 99),
        doneP50Ms: p(b.done, 50),
        doneP99Ms: p(b.done, 99),
        pssMiB: pssNow(),
      };
      rows.push(row);
      say(
        `${String(row.minute).padStart(3)} ${String(row.started).padStart(8)} ${String(row.errors).padStart(6)} ${fmt(row.acceptP50Ms).padStart(8)} ${fmt(row.acceptP99Ms).padStart(8)} ${fmt(row.doneP50Ms).padStart(9)} ${fmt(row.doneP99Ms).padStart(9)}${roles.map((r) => fmt(row.pssMiB[r] ?? Number.NaN).padStart(15)).join('')}`,
      );
    };

    // Open loop: starts are due at a fixed pace whatever the answers' latency.
    const totalMs = options.minutes * 60_000;
    const progress = progressReporter('soak seconds', options.minutes * 60);
    let sent = 0;
    let reported = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const elapsed = performance.now() - started;
        const due = Math.floor((Math.min(elapsed, totalMs) * options.rate) / 1000);
        while (sent < due) void launch(sent++);
        progress(Math.floor(Math.min(elapsed, totalMs) / 1000));
        while (reported < options.minutes && elapsed >= (reported + 1) * 60_000) report(reported++);
        if (reported >= options.minutes) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });

    const drainUntil = performance.now() + 60_000;
    while (inFlight > 0 && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 100));
    unfinished = inFlight;
    const errors = rows.reduce((sum, r) => sum + r.errors, 0) + unfinished;
    // Errors and latencies after the last minute (executions ending during the drain) count too.
    const late = [...buckets.entries()].filter(([m]) => m >= options.minutes);
    const lateErrors = late.reduce((sum, [, b]) => sum + b.errors, 0);

    const first = rows[0] as MinuteRow;
    const last = rows.at(-1) as MinuteRow;
    const result: SoakBenchResult = {
      rate: options.rate,
      minutes: rows,
      errors: errors + lateErrors,
      unfinished,
      pssFirstLastMiB: Object.fromEntries(
        roles.map((r) => [r, { first: first.pssMiB[r] ?? Number.NaN, last: last.pssMiB[r] ?? Number.NaN }]),
      ),
      acceptP99DriftMs: round(last.acceptP99Ms - first.acceptP99Ms),
      doneP99DriftMs: round(last.doneP99Ms - first.doneP99Ms),
    };
    say('\nsummary (first minute → last minute)');
    for (const r of roles) {
      const m = result.pssFirstLastMiB[r] as { first: number; last: number };
      const name = combined && r === 'api' ? 'api+worker' : r;
      say(
        `  PSS ${name.padEnd(16)} ${fmt(m.first).padStart(8)} → ${fmt(m.last).padStart(8)} MiB (${m.last >= m.first ? '+' : ''}${fmt(m.last - m.first)})`,
      );
    }
    say(`  errors: ${result.errors} (unfinished after a 60 s drain: ${unfinished})`);
    say(
      `  p99 of the 202: ${fmt(first.acceptP99Ms)} → ${fmt(last.acceptP99Ms)} ms (drift ${fmt(result.acceptP99DriftMs)} ms)`,
    );
    say(
      `  p99 to completion: ${fmt(first.doneP99Ms)} → ${fmt(last.doneP99Ms)} ms (drift ${fmt(result.doneP99DriftMs)} ms)`,
    );
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    await stack.stop();
  }
}
