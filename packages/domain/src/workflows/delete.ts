import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { isUuid } from '../text';
import { removeTriggersAfterDelete } from '../triggers/sync-after-save';
import { startWebhookDeliveries } from '../webhooks/outbox';
import { recordWorkflowEvent } from '../webhooks/workflow-events';
import { presentWorkflow } from './present';

export async function deleteWorkflow({
  ctx,
  input,
  engine,
}: VerbArgs<{ id: string }> & { engine?: ExecutionEngine }) {
  if (!isUuid(input.id)) throw notFound('Workflow');
  const t = schema.workflows;
  let deliveryIds: string[] = [];
  const deleted = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(eq(t.id, input.id), eq(t.organizationId, ctx.organizationId)))
      .returning();
    if (!row) throw notFound('Workflow');
    await recordAudit(tx, ctx, {
      action: 'deleted',
      entityType: 'workflow',
      entityId: row.id,
      oldValues: presentWorkflow(row),
    });
    deliveryIds = await recordWorkflowEvent(tx, 'workflow.deleted', row);
    return { id: row.id, trigger_type: row.triggerType };
  });
  await removeTriggersAfterDelete({ engine, workflow: deleted });
  await startWebhookDeliveries(engine, ctx.organizationId, deliveryIds);
}
