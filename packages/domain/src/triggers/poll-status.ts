import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';

/**
 * GET /workflows/{id}/poll-status: when the workflow last polled, how it went and why it failed,
 * so an operator sees a broken poll without reading worker logs. Null fields: never polled yet.
 */
export async function getPollStatus({ ctx, input }: VerbArgs<{ workflowId: string }>) {
  if (!isUuid(input.workflowId)) throw notFound('Workflow');
  const w = schema.workflows;
  const p = schema.pollStates;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .select({ id: w.id, triggerType: w.triggerType, status: w.status, state: p })
      .from(w)
      .leftJoin(p, eq(p.workflowId, w.id))
      .where(and(eq(w.id, input.workflowId), eq(w.organizationId, ctx.organizationId)));
    if (!row) throw notFound('Workflow');
    return {
      workflow_id: row.id,
      trigger_type: row.triggerType,
      status: row.status,
      last_polled_at: row.state?.lastPolledAt?.toISOString() ?? null,
      last_status: row.state?.lastStatus ?? null,
      last_error: row.state?.lastError ?? null,
      last_new_items: row.state?.lastNewItems ?? null,
      baseline_taken_at: row.state?.baselineTakenAt?.toISOString() ?? null,
    };
  });
}
