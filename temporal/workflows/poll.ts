import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { pollWorkflow } = proxyActivities<Activities>({
  // The fetch is capped at 15 s; the rest is PostgreSQL and starting the new executions.
  startToCloseTimeout: '2 minutes',
  // Only infrastructure errors (the database) throw; a failing fetch is recorded and returned.
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * One poll of a polling-triggered workflow, started by its Temporal Schedule (`poll-<workflow id>`).
 * The schedule's SKIP overlap policy keeps polls of one workflow from overlapping; the dedup in
 * PostgreSQL holds even when they do (a manual trigger, two schedules during a sync race).
 */
export async function pollTrigger(args: { organizationId: string; workflowId: string }) {
  return pollWorkflow(args);
}
