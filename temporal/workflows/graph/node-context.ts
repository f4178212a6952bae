import { ApplicationFailure, condition, executeChild, ParentClosePolicy, sleep } from '@temporalio/workflow';
import type { GraphNode } from '@weft/graph/runtime';
import type { ApprovalRequest, ApprovalResult, WorkflowNodeContext } from '@weft/nodes/runtime';
import type { ApprovalSignal } from '../../shared';
import type { executeGraph } from '../execute-graph';
import { local, sideEffects } from './activities';
import type { GraphRun, LoopScope } from './state';

/** Where a node runs in the walk: what its workflow-side code may read and how it walks a loop body. */
export interface NodePlace {
  outputs: Record<string, unknown>;
  liveInputs: string[];
  iteration: number;
  loop: LoopScope;
  /** Walks the body of this (loop) node once for an item. */
  walkLoopBody: (item: unknown, index: number, count: number) => Promise<unknown>;
}

/**
 * The Temporal side of a node that runs in workflow code (its type's `workflow.ts`): timers,
 * conditions, child workflows and the activities around them, and the step's waiting status.
 */
export function nodeContext(
  run: GraphRun,
  node: GraphNode,
  config: Record<string, unknown>,
  place: NodePlace,
): WorkflowNodeContext {
  const { execution } = run;
  return {
    liveInputs: () => Object.fromEntries(place.liveInputs.map((id) => [id, place.outputs[id] ?? null])),
    pause: (during) => run.pauseWithStatus(node, place.iteration, config, during),
    sleep: (ms) => sleep(ms),
    waitUntil: (test, timeoutMs) => condition(test, timeoutMs),
    receivedEvents: run.receivedEvents,
    failure: (message, code) => ApplicationFailure.nonRetryable(message, code),
    walkLoopBody: place.walkLoopBody,
    outgoingPayload: run.outgoingPayload,
    requestApproval: (request) => requestApproval(run, node, config, place.iteration, request),
    children: {
      prepare: (workflowId, payload) =>
        sideEffects.prepareChildExecution({
          organizationId: execution.organizationId,
          parentExecutionId: execution.executionId,
          workflowId,
          payload,
        }),
      start: (executionId) =>
        sideEffects.startExecutions({
          organizationId: execution.organizationId,
          executionIds: [executionId],
        }),
      // By type name: importing the workflow function here would make the modules import each other.
      run: (executionId) =>
        executeChild<typeof executeGraph>('executeGraph', {
          workflowId: `exec-${executionId}`,
          args: [{ executionId, organizationId: execution.organizationId }],
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        }),
    },
  };
}

/**
 * The approval mechanism (DESIGN §14), shared by action.approval and the agent's approval gate: the
 * row is written (and notifications sent) by an activity, then the step waits on a durable timer
 * for the decision signal; at the deadline an activity settles the row, where a decision written
 * in the meantime still wins.
 */
async function requestApproval(
  run: GraphRun,
  node: GraphNode,
  config: Record<string, unknown>,
  iteration: number,
  request: ApprovalRequest,
): Promise<ApprovalResult> {
  const { execution } = run;
  // A retry of the step (attempt 2+, after a deadline failed it) asks again rather than finding
  // the timed-out approval of the attempt before.
  const attempt = run.attempt > 1 ? `:attempt-${run.attempt}` : '';
  const requestKey = `${run.stepKey(node, iteration)}${attempt}${request.key ? `:${request.key}` : ''}`;
  const opened = await sideEffects.openApproval({
    organizationId: execution.organizationId,
    executionId: execution.executionId,
    workflowId: execution.workflowId,
    nodeId: node.id,
    requestKey,
    title: request.title,
    message: request.message,
    // Workflow time: deterministic, and the same clock the deadline's timer runs on.
    ...(request.timeoutMs !== undefined
      ? { expiresAt: new Date(Date.now() + request.timeoutMs).toISOString() }
      : {}),
    ...(request.notify ? { notify: request.notify } : {}),
  });
  let outcome: ApprovalSignal | null = opened.outcome;
  if (!outcome) {
    await run.pauseWithStatus(node, iteration, config, async () => {
      const decided = () => run.approvalOutcomes.has(opened.id);
      if (request.timeoutMs === undefined) await condition(decided);
      else await condition(decided, request.timeoutMs);
    });
    outcome =
      run.approvalOutcomes.get(opened.id) ??
      (await local.settleApprovalAtDeadline({
        organizationId: execution.organizationId,
        approvalId: opened.id,
        onTimeout: request.onTimeout === 'approve' ? 'approve' : 'reject',
      }));
  }
  const timedOut = outcome.via === 'timeout';
  if (timedOut && request.onTimeout === 'fail') {
    throw ApplicationFailure.nonRetryable(
      "Nobody decided before the approval's deadline.",
      'approval_timeout',
    );
  }
  return { ...outcome, timed_out: timedOut };
}
