import { schema, withTenant } from '@weft/db';
import { and, eq, inArray } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { AppError, notFound } from '../errors';
import { isUuid } from '../text';

/** Executions that have ended for good. A failed one still waits for a retry: cancel it first. */
const DELETABLE = new Set(['success', 'partial', 'cancelled']);

/**
 * DELETE /executions/{id}: removes an ended execution with its steps and stored outputs (they
 * cascade). Replays and retries that point at it keep their own records; their links then lead to
 * a 404, as after retention pruning.
 */
export async function deleteExecution({ ctx, input }: VerbArgs<{ id: string }>) {
  if (!isUuid(input.id)) throw notFound('Execution');
  const e = schema.executions;
  await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select({
        status: e.status,
        workflowId: e.workflowId,
        workflowName: e.workflowName,
        startedAt: e.startedAt,
      })
      .from(e)
      .where(and(eq(e.id, input.id), eq(e.organizationId, ctx.organizationId)))
      .for('update');
    if (!existing) throw notFound('Execution');
    if (!DELETABLE.has(existing.status)) {
      throw new AppError(
        'conflict',
        existing.status === 'failed'
          ? 'A failed execution waits for a retry: cancel it first, then delete it.'
          : `A ${existing.status} execution cannot be deleted: cancel it first.`,
      );
    }
    // A retry of it still to finish reads its recorded steps: deleting them would make it run
    // every step again, side effects included.
    const [retry] = await tx
      .select({ id: e.id })
      .from(e)
      .where(
        and(
          eq(e.organizationId, ctx.organizationId),
          eq(e.retryOf, input.id),
          inArray(e.status, ['pending', 'running', 'waiting', 'failed']),
        ),
      )
      .limit(1);
    if (retry) {
      throw new AppError(
        'conflict',
        `Execution ${retry.id} retries this one and has not finished: let it end (or cancel it) first.`,
      );
    }
    await tx.delete(e).where(and(eq(e.id, input.id), eq(e.organizationId, ctx.organizationId)));
    await recordAudit(tx, ctx, {
      action: 'deleted',
      entityType: 'execution',
      entityId: input.id,
      oldValues: {
        status: existing.status,
        workflow_id: existing.workflowId,
        workflow_name: existing.workflowName,
        started_at: existing.startedAt.toISOString(),
      },
    });
  });
}
