import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { startExecutions } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const BATCH = 50;

/**
 * Fans a large batch of recorded executions out to their own workflows, so that the API can answer
 * 202 after one durable start however many workflows an event triggers. Starting is idempotent.
 */
export async function dispatchExecutions(args: {
  organizationId: string;
  executionIds: string[];
}): Promise<void> {
  const batches: string[][] = [];
  for (let i = 0; i < args.executionIds.length; i += BATCH)
    batches.push(args.executionIds.slice(i, i + BATCH));
  await Promise.all(
    batches.map((executionIds) => startExecutions({ organizationId: args.organizationId, executionIds })),
  );
}
