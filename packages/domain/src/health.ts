import { readFile } from 'node:fs/promises';
import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';

/** Resolves when PostgreSQL answers a trivial query. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}

/**
 * The worker process as /readyz reports it: `ok` once it said it is ready, `starting` before,
 * `restarting` while its supervisor waits out the backoff after a crash, `down` when no supervisor
 * state says otherwise.
 */
export type WorkerCheck = 'ok' | 'starting' | 'restarting' | 'down';

/**
 * Reads the worker's state from the run state file of `weft up` (services/cli/src/run-state.ts
 * writes it; this reads only the `processes.worker.state` field). The supervisor is the one that sees
 * the worker exit, at once; Temporal's list of task-queue pollers would show a killed worker for
 * minutes after, so it cannot say "restarting" while a restart is under way.
 */
export async function readSupervisedWorker(file: string): Promise<WorkerCheck> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return 'down';
  let state: unknown;
  try {
    state = (JSON.parse(text) as { processes?: { worker?: { state?: unknown } } }).processes?.worker?.state;
  } catch {
    return 'down';
  }
  if (state === 'running') return 'ok';
  return state === 'starting' || state === 'restarting' ? state : 'down';
}
