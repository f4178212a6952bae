import {
  defineSearchAttributeKey,
  SearchAttributeType,
  TypedSearchAttributes,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/common';
import {
  condition,
  ParentClosePolicy,
  proxyLocalActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { executionWorkflowId, SEARCH_ATTRIBUTES } from '../shared';
import { executeGraph } from './execute-graph';

// Short PostgreSQL writes: local activities run inside the fire's first workflow task, so a minute
// boundary with hundreds of fires costs the server one task per fire instead of three.
const { recordScheduledFire, publishScheduledEvent, readExecutionStatus } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
});

/** Set by Temporal on every workflow a Schedule starts: the time the fire was scheduled for. */
const SCHEDULED_START_TIME = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** Execution statuses after which the schedule may fire again (a failed run parks for a retry). */
const SETTLED = new Set(['success', 'partial', 'failed', 'cancelled']);

/** How often a fire checks whether its execution has settled while the run itself goes on. */
const SETTLE_CHECK_INTERVAL = '1 minute';

/**
 * One fire of a scheduled workflow's Temporal Schedule (`schedule-<workflow id>`). Records the
 * execution (trigger `schedule`, payload `{scheduled_at}`), fires `scheduled.<workflow id>` for
 * `scheduled.*` listeners, runs the graph as the child `exec-<execution id>` and waits until the
 * execution has settled, so the schedule's SKIP overlap policy means "never two runs of this
 * workflow at once". A failed run that parks waiting for a retry counts as settled: it must not
 * hold the schedule for days.
 */
export async function scheduledFire(args: {
  organizationId: string;
  workflowId: string;
}): Promise<{ executionId: string | null; status: string | null }> {
  const info = workflowInfo();
  const scheduledAt = (info.typedSearchAttributes.get(SCHEDULED_START_TIME) ?? info.startTime).toISOString();
  const fire = { ...args, scheduledAt };
  const recorded = await recordScheduledFire(fire);
  // The workflow was deleted or deactivated since: the schedule's sync has not caught up yet.
  if (recorded === null) return { executionId: null, status: null };
  await publishScheduledEvent(fire);

  const { executionId } = recorded;
  let settled = false;
  try {
    const child = await startChild(executeGraph, {
      workflowId: executionWorkflowId(executionId),
      args: [{ executionId, organizationId: args.organizationId }],
      // The execution outlives this fire workflow whatever happens to it (cancel, retry in place).
      parentClosePolicy: ParentClosePolicy.ABANDON,
      priority: { fairnessKey: args.organizationId },
      typedSearchAttributes: new TypedSearchAttributes([
        { key: SEARCH_ATTRIBUTES.organizationId, value: args.organizationId },
      ]),
    });
    child.result().then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
  } catch (error) {
    // Already started (this fire's history was replayed on a new worker after the start): wait by status.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  let status: string | null = null;
  while (!(await condition(() => settled, SETTLE_CHECK_INTERVAL))) {
    status = await readExecutionStatus({ organizationId: args.organizationId, executionId });
    if (status === null || SETTLED.has(status)) break;
  }
  return { executionId, status: settled ? 'settled' : status };
}
