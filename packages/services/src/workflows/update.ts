import { schema, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentWorkflow } from './present';
import type { WorkflowInput } from './workflow-input';

/** PUT semantics: every field is replaced, nodes and edges included. */
export async function updateWorkflow({ ctx, input }: VerbArgs<{ id: string; workflow: WorkflowInput }>) {
  if (!isUuid(input.id)) throw notFound('Workflow');
  const t = schema.workflows;
  const next = input.workflow;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select()
      .from(t)
      .where(and(eq(t.id, input.id), eq(t.organizationId, ctx.organizationId)))
      .for('update');
    if (!existing) throw notFound('Workflow');
    const [row] = await tx
      .update(t)
      .set({
        name: next.name,
        description: next.description ?? null,
        triggerType: next.trigger_type,
        triggerConfig: next.trigger_config,
        status: next.status,
        nodes: next.nodes,
        edges: next.edges,
        version: sql`${t.version} + 1`,
      })
      .where(eq(t.id, input.id))
      .returning();
    if (!row) throw notFound('Workflow');
    const workflow = presentWorkflow(row);
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'workflow',
      entityId: row.id,
      oldValues: presentWorkflow(existing),
      newValues: workflow,
    });
    return workflow;
  });
}
