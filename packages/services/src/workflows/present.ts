import type { schema } from '@weft/db';

export function presentWorkflow(row: typeof schema.workflows.$inferSelect) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    trigger_type: row.triggerType,
    trigger_config: row.triggerConfig,
    status: row.status,
    nodes: row.nodes,
    edges: row.edges,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
export type WorkflowResource = ReturnType<typeof presentWorkflow>;

/** The list omits the graph (it can be large); GET /workflows/{id} returns it. */
export function presentWorkflowSummary(
  row: Omit<typeof schema.workflows.$inferSelect, 'nodes' | 'edges' | 'webhookToken'>,
) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    trigger_type: row.triggerType,
    trigger_config: row.triggerConfig,
    status: row.status,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
