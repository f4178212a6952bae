import type { schema } from '@weft/db';

type ApprovalRow = typeof schema.approvals.$inferSelect;

/** An approval as the API shows it (DESIGN §14 plus the decision and deadline). */
export function presentApproval(row: ApprovalRow & { workflowName?: string | null }) {
  return {
    id: row.id,
    execution_id: row.executionId,
    workflow_id: row.workflowId,
    workflow_name: row.workflowName ?? null,
    node_id: row.nodeId,
    title: row.title,
    message: row.message,
    status: row.status,
    decided_by: row.decidedBy,
    decided_via: row.decidedVia,
    comment: row.comment,
    decided_at: row.decidedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}
export type PresentedApproval = ReturnType<typeof presentApproval>;
