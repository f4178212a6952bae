import { type Database, schema, withTenant } from '@weft/db';
import { and, eq, notInArray, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { recordExecutionEvent } from '../webhooks/execution-events';
import { type DeliveryStarter, startWebhookDeliveries } from '../webhooks/outbox';
import type { ExecutionMode, ExecutionProgress, LoadedExecution, TestOptions } from './types';

/**
 * Writes what the interpreter did since its last report: step rows (upserted by node and
 * iteration, so a replayed report is harmless) and the execution's status. A cancelled execution
 * stays cancelled whatever a late report says.
 *
 * A status with an outbound webhook event (success, partial, failed, waiting) records its
 * deliveries in the same transaction; `engine` then starts them once the transaction committed.
 */
export async function saveExecutionProgress(
  db: Database,
  progress: ExecutionProgress,
  engine?: DeliveryStarter,
): Promise<{ workflowId: string; mode: ExecutionMode } | null> {
  const e = schema.executions;
  const { saved, deliveryIds } = await withTenant(db, progress.organizationId, async (tx) => {
    // The step rows and the execution's row are written by two statements sent together
    // (postgres.js pipelines a transaction's concurrent queries): one round trip, not two.
    const writeSteps = async () => {
      if (progress.steps.length > 0) await tx.execute(upsertStepsStatement(progress));
    };
    const completedAt = progress.completedAt ? new Date(progress.completedAt) : null;
    const updateExecution = tx
      .update(e)
      .set({
        status: progress.status,
        error: progress.error ?? null,
        completedAt,
        durationMs: completedAt
          ? sql`(extract(epoch from (${completedAt.toISOString()}::timestamptz - ${e.startedAt})) * 1000)::bigint`
          : null,
      })
      .where(
        and(
          eq(e.id, progress.executionId),
          notInArray(e.status, ['cancelled']),
          // A report from an older attempt must not overwrite a retry already under way.
          sql`${e.attempt} <= ${progress.attempt}`,
        ),
      )
      .returning({ workflowId: e.workflowId, mode: e.mode });
    const [, [saved]] = await Promise.all([writeSteps(), updateExecution]);
    // No row: the report was refused (cancelled, or an older attempt), so nothing happened to announce.
    // Test runs and replays are never announced to outbound webhooks (DESIGN §15: a replay never calls out).
    const announce = saved !== undefined && saved.mode === 'production';
    return {
      saved: saved ? { workflowId: saved.workflowId, mode: saved.mode } : null,
      deliveryIds: announce ? await recordExecutionEvent(tx, progress) : [],
    };
  });
  await startWebhookDeliveries(engine, progress.organizationId, deliveryIds);
  return saved;
}

/**
 * The step rows' upsert as one statement with one jsonb parameter, whatever the number of steps:
 * one text for PostgreSQL to prepare once per connection, and no per-column builder work in our
 * process (drizzle's multi-row insert checked every value of every column: ~6% of the API+worker
 * process's CPU under load, issue 24).
 */
function upsertStepsStatement(progress: ExecutionProgress) {
  const s = schema.executionSteps;
  const rows = progress.steps.map((step) => ({
    id: uuidv7(),
    node_id: step.nodeId,
    node_type: step.nodeType,
    iteration: step.iteration,
    position: step.position,
    status: step.status,
    attempt: step.attempt,
    output: step.output ?? null,
    resolved_config: step.resolvedConfig ?? null,
    error: step.error ?? null,
    started_at: step.startedAt ?? null,
    completed_at: step.completedAt ?? null,
    duration_ms: step.durationMs ?? null,
    source: step.source ?? null,
  }));
  return sql`
    insert into ${s} (id, organization_id, execution_id, node_id, node_type, iteration, position,
      status, attempt, output, resolved_config, error, started_at, completed_at, duration_ms, source)
    select r.id, ${progress.organizationId}::uuid, ${progress.executionId}::uuid, r.node_id,
      r.node_type, r.iteration, r.position, r.status, r.attempt, r.output, r.resolved_config,
      r.error, r.started_at, r.completed_at, r.duration_ms, r.source
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, node_id text,
      node_type text, iteration integer, position integer, status text, attempt integer,
      output jsonb, resolved_config jsonb, error jsonb, started_at timestamptz,
      completed_at timestamptz, duration_ms bigint, source text)
    -- Row-level security shows the execution only to its own organization: a report naming
    -- another organization's execution writes nothing (a foreign key check alone would pass).
    where exists (select 1 from ${schema.executions} where id = ${progress.executionId}::uuid)
    on conflict (execution_id, node_id, iteration) do update set
      status = excluded.status, attempt = excluded.attempt, output = excluded.output,
      resolved_config = excluded.resolved_config, error = excluded.error,
      started_at = excluded.started_at, completed_at = excluded.completed_at,
      duration_ms = excluded.duration_ms, source = excluded.source`;
}

/** The snapshot an execution runs from, out of its `executions` row (drizzle or raw SQL names). */
export function loadedExecutionOf(row: {
  id: string;
  organization_id: string;
  workflow_id: string;
  workflow_name: string;
  graph: unknown;
  trigger: string;
  event: string | null;
  trigger_payload: unknown;
  started_at: string | Date;
  status: string;
  attempt: number;
  mode?: string;
  replay_of?: string | null;
  test_options?: unknown;
  retry_of?: string | null;
}): LoadedExecution {
  return {
    executionId: row.id,
    organizationId: row.organization_id,
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    graph: row.graph as LoadedExecution['graph'],
    trigger: row.trigger,
    event: row.event,
    payload: row.trigger_payload,
    startedAt: new Date(row.started_at).toISOString(),
    status: row.status,
    attempt: row.attempt,
    ...(row.mode === 'test'
      ? {
          mode: 'test' as const,
          replayOf: row.replay_of ?? null,
          testOptions: (row.test_options ?? null) as TestOptions | null,
        }
      : {}),
    ...(row.retry_of ? { retryOf: row.retry_of } : {}),
  };
}

/**
 * What the execution workflow loads when it starts, unless the starter handed it the snapshot it
 * had just recorded (POST /events does, saving the workflow a round trip to PostgreSQL).
 */
export async function loadExecution(
  db: Database,
  ref: { executionId: string; organizationId: string },
): Promise<LoadedExecution | null> {
  const e = schema.executions;
  const [row] = await withTenant(db, ref.organizationId, (tx) =>
    tx.select().from(e).where(eq(e.id, ref.executionId)),
  );
  if (!row) return null;
  return loadedExecutionOf({
    id: row.id,
    organization_id: row.organizationId,
    workflow_id: row.workflowId,
    workflow_name: row.workflowName,
    graph: row.graph,
    trigger: row.trigger,
    event: row.event,
    trigger_payload: row.triggerPayload,
    started_at: row.startedAt,
    status: row.status,
    attempt: row.attempt,
    mode: row.mode,
    replay_of: row.replayOf,
    test_options: row.testOptions,
    retry_of: row.retryOf,
  });
}
