import { schema, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { assertCredentialReferences } from '../credentials/references';
import type { SecretBox } from '../encryption';
import { AppError, notFound } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { generateHookToken } from '../hooks/token';
import { isUuid } from '../text';
import { assertToolNameFree } from '../tools/tool-name';
import { syncTriggersAfterSave } from '../triggers/sync-after-save';
import { startWebhookDeliveries } from '../webhooks/outbox';
import { recordWorkflowEvent } from '../webhooks/workflow-events';
import { sealHookSecret } from './hook-secret';
import { presentWorkflow } from './present';
import { assertModulesConfigured } from './required-modules';
import { recordWorkflowVersion } from './versions';
import type { WorkflowInput } from './workflow-input';

/**
 * PUT semantics: every field is replaced, nodes and edges included. With `expectedVersion` (the
 * If-Match header) a save based on an older version is a 409: two editors never silently overwrite
 * each other.
 */
export async function updateWorkflow({
  ctx,
  input,
  siteUrl,
  engine,
  secrets,
}: VerbArgs<{ id: string; workflow: WorkflowInput; expectedVersion?: number }> & {
  siteUrl?: string;
  engine?: ExecutionEngine;
  secrets: SecretBox;
}) {
  if (!isUuid(input.id)) throw notFound('Workflow');
  const t = schema.workflows;
  const next = input.workflow;
  let previousTriggerType: string | null = null;
  let deliveryIds: string[] = [];
  const updated = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select()
      .from(t)
      .where(and(eq(t.id, input.id), eq(t.organizationId, ctx.organizationId)))
      .for('update');
    if (!existing) throw notFound('Workflow');
    if (input.expectedVersion !== undefined && existing.version !== input.expectedVersion) {
      throw new AppError(
        'conflict',
        `This workflow was saved by someone else since you opened it (you edited version ${input.expectedVersion}, the latest is ${existing.version}). Reload it, or save again to overwrite.`,
        { version: [`the latest version is ${existing.version}`] },
      );
    }
    await assertCredentialReferences(tx, ctx.organizationId, next);
    await assertModulesConfigured(tx, ctx.organizationId, next);
    await assertToolNameFree(tx, ctx.organizationId, next, input.id);
    previousTriggerType = existing.triggerType;
    const [row] = await tx
      .update(t)
      .set({
        name: next.name,
        description: next.description ?? null,
        triggerType: next.trigger_type,
        triggerConfig: sealHookSecret(
          next.trigger_type,
          next.trigger_config,
          secrets,
          existing.triggerConfig,
        ),
        status: next.status,
        nodes: next.nodes,
        edges: next.edges,
        notes: next.notes ?? existing.notes,
        version: sql`${t.version} + 1`,
        // The hook token lives while the trigger is a webhook: kept across edits, made when switching
        // to webhook, dropped (the URL stops working) when switching away.
        webhookToken: next.trigger_type === 'webhook' ? (existing.webhookToken ?? generateHookToken()) : null,
      })
      .where(eq(t.id, input.id))
      .returning();
    if (!row) throw notFound('Workflow');
    const workflow = presentWorkflow(row);
    await recordWorkflowVersion(tx, ctx, workflow);
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'workflow',
      entityId: row.id,
      oldValues: presentWorkflow(existing),
      newValues: workflow,
    });
    deliveryIds = await recordWorkflowEvent(tx, 'workflow.updated', row);
    return siteUrl === undefined ? workflow : presentWorkflow(row, siteUrl);
  });
  // After the commit, so Temporal never runs a config that was rolled back.
  await syncTriggersAfterSave({
    engine,
    organizationId: ctx.organizationId,
    previousTriggerType,
    workflow: updated,
  });
  await startWebhookDeliveries(engine, ctx.organizationId, deliveryIds);
  return updated;
}
