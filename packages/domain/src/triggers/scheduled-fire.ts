import { type Database, schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { publishEvent } from '../events/publish';
import type { ExecutionEngine } from '../executions/execution-engine';
import { prepareExecutions } from '../executions/prepare';
import { presentWorkflow } from '../workflows/present';
import { nameBasedUuid } from './name-based-uuid';

/** The event a schedule fires (DESIGN §4): `scheduled.<workflow_id>`. */
export const scheduledEventName = (workflowId: string) => `scheduled.${workflowId}`;

/**
 * Records the execution of one schedule fire: trigger `schedule`, event `scheduled.<workflow_id>`,
 * payload `{scheduled_at}`. Its id is derived from (workflow, scheduled time), so a retried activity
 * finds the execution it already recorded instead of adding a second. Null when the workflow was
 * deleted, deactivated or re-triggered since the schedule fired (the sync just has not caught up).
 */
export async function recordScheduledFire(
  db: Database,
  ref: { organizationId: string; workflowId: string; scheduledAt: string },
): Promise<{ executionId: string } | null> {
  const executionId = nameBasedUuid(`schedule:${ref.workflowId}:${ref.scheduledAt}`);
  const w = schema.workflows;
  const e = schema.executions;
  return withTenant(db, ref.organizationId, async (tx) => {
    const [existing] = await tx.select({ id: e.id }).from(e).where(eq(e.id, executionId));
    if (existing) return { executionId };
    const [row] = await tx
      .select()
      .from(w)
      .where(and(eq(w.id, ref.workflowId), eq(w.organizationId, ref.organizationId)));
    if (row?.status !== 'active' || row.triggerType !== 'schedule') return null;
    await prepareExecutions(tx, ref.organizationId, [
      {
        workflow: presentWorkflow(row),
        trigger: 'schedule',
        event: scheduledEventName(ref.workflowId),
        payload: { scheduled_at: ref.scheduledAt },
        executionId,
      },
    ]);
    return { executionId };
  });
}

/**
 * Publishes `scheduled.<workflow_id>` inside the organization, so event-triggered workflows that
 * listen to `scheduled.*` run on every fire too (the spec's "Scheduled: scheduled.*" event).
 */
export async function publishScheduledEvent(
  deps: { db: Database; engine: ExecutionEngine },
  ref: { organizationId: string; workflowId: string; scheduledAt: string },
) {
  const result = await publishEvent({
    ctx: { db: deps.db, organizationId: ref.organizationId, actor: {} },
    input: { event: scheduledEventName(ref.workflowId), payload: { scheduled_at: ref.scheduledAt } },
    engine: deps.engine,
    trigger: 'schedule',
  });
  return { execution_ids: result.execution_ids };
}

/** The status of an execution, for the schedule fire that waits for it (null: no such execution). */
export async function readExecutionStatus(
  db: Database,
  ref: { organizationId: string; executionId: string },
): Promise<string | null> {
  const e = schema.executions;
  const [row] = await withTenant(db, ref.organizationId, (tx) =>
    tx.select({ status: e.status }).from(e).where(eq(e.id, ref.executionId)),
  );
  return row?.status ?? null;
}
