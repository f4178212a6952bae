import type { Database } from '@weft/db';
import { type SQL, sql } from 'drizzle-orm';
import { AGENT_MEMORY_RETENTION_DAYS } from '../agent-memory/memory';

const DAY_MS = 86_400_000;

/** Rows per batch: each batch is one short statement, so pruning a backlog never holds long locks. */
export const DEFAULT_TABLE_PRUNE_BATCH_SIZE = 1000;

/**
 * How long a polling dedup key outlives the last poll that listed its item; it goes only once a
 * later successful poll no longer listed it and the execution it started was pruned. A source that
 * drops an item for a while and lists it again within this time does not run it twice.
 */
export const POLL_KEY_UNSEEN_DAYS = 30;

/**
 * How long an inbound chat message's provider id is kept to drop redeliveries: providers retry a
 * webhook for hours (the cloud provider for up to 7 days), so 30 days leaves a wide margin.
 */
export const CHAT_INBOUND_DEDUP_DAYS = 30;

/**
 * How long a local call's recorded answer is kept (local-call-results.ts). It is read only when the
 * workflow task after the call is run again: within seconds, or once a worker is back after an
 * outage. Ten minutes after its execution finished it can no longer be asked for; a day covers an
 * outage of a day, past which a repeat calls again, as after a worker's death.
 */
export const LOCAL_CALL_RESULT_KEEP_MS = 86_400_000;
export const LOCAL_CALL_RESULT_AFTER_FINISH_MS = 10 * 60_000;

/** Rate-limit buckets are one-minute windows; one over this long ago is dead weight. */
export const RATE_LIMIT_WINDOW_KEEP_MS = 10 * 60_000;

export interface TableRetention {
  /** EXECUTION_RETENTION_DAYS: finished outbound webhook deliveries follow the executions; 0 keeps them. */
  executionRetentionDays: number;
  /** AUDIT_LOG_RETENTION_DAYS; 0 keeps the audit log forever. */
  auditLogRetentionDays: number;
  batchSize?: number;
  /** The clock (tests move it). */
  now?: Date;
  /** Aborted: no further batch starts (the process is stopping). */
  signal?: AbortSignal;
}

export interface TablePruneReport {
  webhook_deliveries: number;
  audit_logs: number;
  poll_seen_items: number;
  chat_inbound_messages: number;
  rate_limit_counters: number;
  /** Expired idempotency records and web sessions past their absolute lifetime. */
  expired_records: number;
  /** AI agents' conversation turns older than AGENT_MEMORY_RETENTION_DAYS. */
  agent_memory: number;
  /** Local calls' recorded answers of finished executions, or older than LOCAL_CALL_RESULT_KEEP_MS. */
  local_call_results: number;
}

/**
 * Deletes the expired rows of the growing tables besides executions (webhook deliveries, audit
 * logs, poll dedup keys, inbound chat message ids, dead rate-limit windows, expired idempotency
 * records and web sessions, local calls' recorded answers), each through its reviewed SECURITY DEFINER function (migrations 0029
 * and 0031; the runtime role has no DELETE on audit_logs), a batch at a time until a batch comes back
 * short. Inbound hook receipts are pruned every minute by
 * the delivery sweeper (pruneHookReceipts), as their window is hours.
 */
export async function pruneExpiredRows(db: Database, options: TableRetention): Promise<TablePruneReport> {
  const now = (options.now ?? new Date()).getTime();
  const before = (days: number) => new Date(now - days * DAY_MS).toISOString();
  const batch = options.batchSize ?? DEFAULT_TABLE_PRUNE_BATCH_SIZE;
  return {
    webhook_deliveries:
      options.executionRetentionDays > 0
        ? await inBatches(
            db,
            batch,
            sql`weft_prune_webhook_deliveries(${before(options.executionRetentionDays)}::timestamptz, ${batch})`,
            options.signal,
          )
        : 0,
    audit_logs:
      options.auditLogRetentionDays > 0
        ? await inBatches(
            db,
            batch,
            sql`weft_prune_audit_logs(${before(options.auditLogRetentionDays)}::timestamptz, ${batch})`,
            options.signal,
          )
        : 0,
    poll_seen_items: await inBatches(
      db,
      batch,
      sql`weft_prune_poll_seen_items(${before(POLL_KEY_UNSEEN_DAYS)}::timestamptz, ${batch})`,
      options.signal,
    ),
    chat_inbound_messages: await inBatches(
      db,
      batch,
      sql`weft_prune_chat_inbound_messages(${before(CHAT_INBOUND_DEDUP_DAYS)}::timestamptz, ${batch})`,
      options.signal,
    ),
    rate_limit_counters: await inBatches(
      db,
      batch,
      sql`weft_prune_rate_limit_counters(${new Date(now - RATE_LIMIT_WINDOW_KEEP_MS).toISOString()}::timestamptz, ${batch})`,
      options.signal,
    ),
    expired_records: await inBatches(db, batch, sql`weft_prune_expired_records(${batch})`, options.signal),
    agent_memory: await inBatches(
      db,
      batch,
      sql`weft_prune_agent_memory(${before(AGENT_MEMORY_RETENTION_DAYS)}::timestamptz, ${batch})`,
      options.signal,
    ),
    local_call_results: await inBatches(
      db,
      batch,
      sql`weft_prune_local_call_results(${new Date(now - LOCAL_CALL_RESULT_KEEP_MS).toISOString()}::timestamptz, ${new Date(now - LOCAL_CALL_RESULT_AFTER_FINISH_MS).toISOString()}::timestamptz, ${batch})`,
      options.signal,
    ),
  };
}

async function inBatches(db: Database, batchSize: number, call: SQL, signal?: AbortSignal): Promise<number> {
  let total = 0;
  for (;;) {
    if (signal?.aborted) return total;
    const [row] = await db.execute<{ deleted: number }>(sql`select ${call} as deleted`);
    const deleted = Number(row?.deleted ?? 0);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
