import type { schema } from '@weft/db';
import { formUrl, hookUrl } from '../hooks/token';
import { presentTriggerConfig } from './hook-secret';

/**
 * `siteUrl` (APP_URL) adds `webhook_url` for webhook workflows, `form_url` for form workflows. Audit records are presented without
 * it: the URL holds the hook's token, a credential.
 */
export function presentWorkflow(row: typeof schema.workflows.$inferSelect, siteUrl?: string) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    trigger_type: row.triggerType,
    trigger_config: presentTriggerConfig(row.triggerConfig),
    status: row.status,
    nodes: row.nodes,
    edges: row.edges,
    notes: row.notes,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ...(siteUrl !== undefined &&
      row.triggerType === 'webhook' &&
      row.webhookToken !== null && { webhook_url: hookUrl(siteUrl, row.webhookToken) }),
    ...(siteUrl !== undefined &&
      row.triggerType === 'form' &&
      row.webhookToken !== null && { form_url: formUrl(siteUrl, row.webhookToken) }),
  };
}
export type WorkflowResource = ReturnType<typeof presentWorkflow>;

/** The list omits the graph (it can be large); GET /workflows/{id} returns it. */
export function presentWorkflowSummary(
  row: Omit<typeof schema.workflows.$inferSelect, 'nodes' | 'edges' | 'notes' | 'webhookToken'>,
) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    trigger_type: row.triggerType,
    trigger_config: presentTriggerConfig(row.triggerConfig),
    status: row.status,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
