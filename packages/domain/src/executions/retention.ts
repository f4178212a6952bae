import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import { pruneExpiredRows } from './table-retention';

const DAY_MS = 86_400_000;

/**
 * How long a failed execution's run stays parked for a retry (the interpreter's deadline, 7 days)
 * plus a day of slack: until then the run may still report into its row, so the row must exist.
 */
const RETRY_WINDOW = '8 days';

/** Executions per batch: each batch is one short transaction, and its steps and outputs go with it. */
export const DEFAULT_PRUNE_BATCH_SIZE = 200;

export interface PruneOptions {
  /** EXECUTION_RETENTION_DAYS; 0 keeps everything. */
  retentionDays: number;
  batchSize?: number;
  /** The clock (tests move it); the cutoff is `now - retentionDays`. */
  now?: Date;
  /** Pause between batches, so a large backlog leaves room for the work that matters. */
  pauseMs?: number;
  /** Aborted: no further batch starts (the process is stopping); the report so far is returned. */
  signal?: AbortSignal;
}

export interface PruneReport {
  /** Executions deleted (their steps and stored outputs were deleted with them). */
  deleted: number;
  batches: number;
  /** Another worker held the pruning lock: this run did nothing and the next tick tries again. */
  skipped: boolean;
}

/**
 * Deletes the finished executions whose `completed_at` is older than the retention, in batches of
 * `batchSize` executions, each its own transaction, until a batch comes back short. Running, pending
 * and waiting executions are never touched, nor a failed one whose run still waits for a retry.
 * Safe with several workers: one PostgreSQL advisory lock lets one of them prune at a time.
 */
export async function pruneExpiredExecutions(db: Database, options: PruneOptions): Promise<PruneReport> {
  const report: PruneReport = { deleted: 0, batches: 0, skipped: false };
  if (options.retentionDays <= 0) return report;
  const batchSize = options.batchSize ?? DEFAULT_PRUNE_BATCH_SIZE;
  const cutoff = new Date((options.now ?? new Date()).getTime() - options.retentionDays * DAY_MS);
  for (;;) {
    if (options.signal?.aborted) return report;
    // Cross-organization by design: a reviewed SECURITY DEFINER function that deletes one batch.
    const rows = await db.execute<{ deleted: number }>(
      sql`select weft_prune_executions(${cutoff.toISOString()}::timestamptz, ${RETRY_WINDOW}::interval, ${batchSize}) as deleted`,
    );
    const deleted = Number(rows[0]?.deleted ?? 0);
    if (deleted < 0) {
      report.skipped = report.batches === 0;
      return report;
    }
    report.batches += 1;
    report.deleted += deleted;
    if (deleted < batchSize) return report;
    if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
}

/**
 * Runs the pruners now and then every `intervalMs` (default one hour) until `stop()`: finished
 * executions, then the other growing tables (pruneExpiredRows). A failed run is logged and tried
 * again at the next tick. `stop()` lets the batch under way finish and starts no other, and
 * resolves once the run has ended: the caller may close the database then (a run cut off by a
 * closed pool would log a failure at every quick restart).
 */
export function startRetentionSweeper(options: {
  db: Database;
  retentionDays: number;
  /** AUDIT_LOG_RETENTION_DAYS; 0 keeps the audit log forever. */
  auditLogRetentionDays: number;
  intervalMs?: number;
  log?: (message: string, error?: unknown) => void;
}): { stop(): Promise<void> } {
  const log = options.log ?? ((message, error) => console.warn(message, error ?? ''));
  const stopping = new AbortController();
  const { signal } = stopping;
  let running: Promise<void> | undefined;
  const pruneAll = async () => {
    const report = await pruneExpiredExecutions(options.db, {
      retentionDays: options.retentionDays,
      pauseMs: 50,
      signal,
    });
    if (report.deleted > 0)
      log(`[retention] deleted ${report.deleted} executions finished over ${options.retentionDays} days ago`);
    const rows = await pruneExpiredRows(options.db, {
      executionRetentionDays: options.retentionDays,
      auditLogRetentionDays: options.auditLogRetentionDays,
      signal,
    });
    const counts = Object.entries(rows).filter(([, n]) => n > 0);
    if (counts.length > 0)
      log(`[retention] deleted ${counts.map(([table, n]) => `${n} ${table}`).join(', ')}`);
  };
  const prune = () => {
    // Never two runs at once in this process: a long one simply delays the next.
    if (running) return;
    running = pruneAll()
      .catch((error: unknown) => log('[retention] pruning failed', error))
      .finally(() => {
        running = undefined;
      });
  };
  prune();
  const timer = setInterval(prune, options.intervalMs ?? 3_600_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
