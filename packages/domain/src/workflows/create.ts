import { schema, withTenant } from '@weft/db';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { assertCredentialReferences } from '../credentials/references';
import type { SecretBox } from '../encryption';
import type { ExecutionEngine } from '../executions/execution-engine';
import { generateHookToken } from '../hooks/token';
import { assertToolNameFree } from '../tools/tool-name';
import { syncTriggersAfterSave } from '../triggers/sync-after-save';
import { startWebhookDeliveries } from '../webhooks/outbox';
import { recordWorkflowEvent } from '../webhooks/workflow-events';
import { sealHookSecret } from './hook-secret';
import { presentWorkflow } from './present';
import { assertModulesConfigured } from './required-modules';
import { recordWorkflowVersion } from './versions';
import type { WorkflowInput } from './workflow-input';

export async function createWorkflow({
  ctx,
  input,
  siteUrl,
  engine,
  secrets,
}: VerbArgs<WorkflowInput> & { siteUrl?: string; engine?: ExecutionEngine; secrets: SecretBox }) {
  let deliveryIds: string[] = [];
  const created = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    await assertCredentialReferences(tx, ctx.organizationId, input);
    await assertModulesConfigured(tx, ctx.organizationId, input);
    await assertToolNameFree(tx, ctx.organizationId, input);
    const [row] = await tx
      .insert(schema.workflows)
      .values({
        organizationId: ctx.organizationId,
        name: input.name,
        description: input.description ?? null,
        triggerType: input.trigger_type,
        triggerConfig: sealHookSecret(input.trigger_type, input.trigger_config, secrets),
        status: input.status,
        nodes: input.nodes,
        edges: input.edges,
        notes: input.notes ?? [],
        // A webhook workflow gets its hook URL's token at birth.
        webhookToken: input.trigger_type === 'webhook' ? generateHookToken() : null,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    const workflow = presentWorkflow(row);
    await recordWorkflowVersion(tx, ctx, workflow);
    await recordAudit(tx, ctx, {
      action: 'created',
      entityType: 'workflow',
      entityId: row.id,
      newValues: workflow,
    });
    deliveryIds = await recordWorkflowEvent(tx, 'workflow.created', row);
    return siteUrl === undefined ? workflow : presentWorkflow(row, siteUrl);
  });
  // After the commit: a schedule or poll must never start for a workflow that was rolled back.
  await syncTriggersAfterSave({
    engine,
    organizationId: ctx.organizationId,
    previousTriggerType: null,
    workflow: created,
  });
  await startWebhookDeliveries(engine, ctx.organizationId, deliveryIds);
  return created;
}
