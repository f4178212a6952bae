import type { schema, Tx } from '@weft/db';
import { presentWorkflowSummary } from '../workflows/present';
import { recordWebhookEvent } from './outbox';

type WorkflowEvent = 'workflow.created' | 'workflow.updated' | 'workflow.deleted';

/**
 * Outbox rows for a workflow change, in the change's own transaction. The body carries the
 * workflow summary (no nodes or edges); an update is identified by the version it produced.
 */
export function recordWorkflowEvent(
  tx: Tx,
  event: WorkflowEvent,
  row: typeof schema.workflows.$inferSelect,
): Promise<string[]> {
  const occurrence = event === 'workflow.updated' ? `${row.id}:${row.version}` : row.id;
  return recordWebhookEvent(tx, row.organizationId, {
    name: event,
    dedupKey: `${event}:${occurrence}`,
    data: async () => ({ workflow: presentWorkflowSummary(row) }),
  });
}
