import type { ExecutionMode, ExecutionProgress } from '@weft/domain';
import { metrics } from '@weft/telemetry';

const FINAL_STATUSES = new Set(['success', 'partial', 'failed', 'cancelled']);
const FINISHED_STEPS = new Set(['completed', 'failed']);

/**
 * Counts what a saved progress report says happened: the execution reaching a final status, and
 * each step that finished. The interpreter reports a step once it has finished and never again
 * (retries run it again, and count again), so every step is observed once per run.
 *
 * Test runs and replays (`mode: test`) are not counted: these metrics drive the production alerts
 * (docs/alerts.md), and a workbench session of failing test runs is not an outage.
 */
export function recordProgressMetrics(
  progress: ExecutionProgress,
  saved?: { workflowId: string; mode: ExecutionMode } | null,
): void {
  if (saved?.mode === 'test') return;
  const workflowId = saved?.workflowId;
  // A failed execution whose 7-day retry window passes is reported failed a second time.
  const again = progress.error?.code === 'retry_expired';
  if (progress.completedAt && FINAL_STATUSES.has(progress.status) && !again) {
    metrics.executionsFinished.inc({ status: progress.status });
    // Absent when the report was refused (the execution was cancelled meanwhile).
    if (workflowId)
      metrics.workflowExecutionsFinished.inc({
        organization_id: progress.organizationId,
        workflow_id: workflowId,
        status: progress.status,
      });
  }
  for (const step of progress.steps) {
    if (step.durationMs === undefined || !FINISHED_STEPS.has(step.status)) continue;
    metrics.stepDuration.observe({ node_type: step.nodeType, outcome: step.status }, step.durationMs / 1000);
  }
}
