import { schema, withTenant } from '@weft/db';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { presentWorkflow } from './present';
import type { WorkflowInput } from './workflow-input';

export async function createWorkflow({ ctx, input }: VerbArgs<WorkflowInput>) {
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .insert(schema.workflows)
      .values({
        organizationId: ctx.organizationId,
        name: input.name,
        description: input.description ?? null,
        triggerType: input.trigger_type,
        triggerConfig: input.trigger_config,
        status: input.status,
        nodes: input.nodes,
        edges: input.edges,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    const workflow = presentWorkflow(row);
    await recordAudit(tx, ctx, {
      action: 'created',
      entityType: 'workflow',
      entityId: row.id,
      newValues: workflow,
    });
    return workflow;
  });
}
