import type { schema } from '@weft/db';

type ExecutionRow = typeof schema.executions.$inferSelect;
type StepRow = typeof schema.executionSteps.$inferSelect;

/** The columns an execution summary shows (lists read only these). */
export type ExecutionSummaryRow = Pick<
  ExecutionRow,
  | 'id'
  | 'workflowId'
  | 'workflowName'
  | 'workflowVersion'
  | 'status'
  | 'trigger'
  | 'event'
  | 'attempt'
  | 'error'
  | 'parentExecutionId'
  | 'startedAt'
  | 'completedAt'
  | 'durationMs'
  | 'mode'
  | 'replayOf'
  | 'testOptions'
  | 'retryOf'
>;

/** `success` and `partial` are both "completed" in the spec's vocabulary. */
export function presentExecution(row: ExecutionSummaryRow, temporalUiUrl?: string) {
  return {
    id: row.id,
    workflow_id: row.workflowId,
    workflow_name: row.workflowName,
    workflow_version: row.workflowVersion,
    status: row.status,
    trigger: row.trigger,
    event: row.event,
    attempt: row.attempt,
    error: row.error ?? null,
    parent_execution_id: row.parentExecutionId,
    started_at: row.startedAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
    duration_ms: row.durationMs,
    mode: row.mode,
    replay_of: row.replayOf,
    test_options: row.testOptions ?? null,
    retry_of: row.retryOf,
    temporal_url: temporalUiUrl
      ? `${temporalUiUrl.replace(/\/$/, '')}/namespaces/default/workflows/exec-${row.id}`
      : undefined,
  };
}

export function presentStep(row: StepRow) {
  return {
    node_id: row.nodeId,
    node_type: row.nodeType,
    iteration: row.iteration < 0 ? null : row.iteration,
    status: row.status,
    attempt: row.attempt,
    started_at: row.startedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
    duration_ms: row.durationMs,
    output: row.output ?? null,
    resolved_config: row.resolvedConfig ?? null,
    error: row.error ?? null,
    source: row.source ?? null,
    replayed: row.source === 'recorded',
  };
}
