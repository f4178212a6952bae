import {
  ApplicationFailure,
  condition,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  sleep,
} from '@temporalio/workflow';
import type { GraphNode } from '@weft/graph/runtime';
import type {
  AgentRuntime,
  AgentToolRequest,
  AgentToolResult,
  ApprovalRequest,
  ApprovalResult,
  WorkflowNodeContext,
} from '@weft/nodes/runtime';
import type { ApprovalSignal } from '../../shared';
import type { executeGraph } from '../execute-graph';
import { agentModel, agentTool, local, sideEffects } from './activities';
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
    checkpoint: () => run.checkpoint(),
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
    agent: agentRuntime(run, node, place.iteration),
  };
}

/**
 * An agent's call of a tool workflow: a child execution, recorded (its arguments validated against
 * the tool's input schema) and run as a child workflow the way action.workflow.execute runs one;
 * its result is the tool workflow's (DESIGN §14).
 */
async function callToolWorkflow(run: GraphRun, request: AgentToolRequest): Promise<AgentToolResult> {
  const { organizationId, executionId } = run.execution;
  const started = Date.now();
  const childId = await sideEffects.prepareChildExecution({
    organizationId,
    parentExecutionId: executionId,
    workflowId: (request.source as { workflow_id: string }).workflow_id,
    payload: request.call.args,
  });
  await executeChild<typeof executeGraph>('executeGraph', {
    workflowId: `exec-${childId}`,
    args: [{ executionId: childId, organizationId }],
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
  });
  const outcome = await sideEffects.agentToolWorkflowResult({ organizationId, executionId: childId });
  const duration_ms = Date.now() - started;
  if (outcome.error !== null) {
    return { content: outcome.error, error: outcome.error, duration_ms, execution_id: childId };
  }
  const content = typeof outcome.result === 'string' ? outcome.result : JSON.stringify(outcome.result);
  return { content, result: outcome.result, duration_ms, execution_id: childId };
}

/** action.ai.agent's calls, each its own activity, for this step. */
function agentRuntime(run: GraphRun, node: GraphNode, iteration: number): AgentRuntime {
  const ref = {
    organizationId: run.execution.organizationId,
    executionId: run.execution.executionId,
    nodeId: node.id,
    stepKey: run.stepKey(node, iteration),
  };
  return {
    listTools: (sources) => sideEffects.agentListTools({ ...ref, sources }),
    callModel: (request) => agentModel.agentCallModel({ ...ref, request }),
    async callTool(request) {
      try {
        if ('workflow_id' in request.source) return await callToolWorkflow(run, request);
        return await agentTool.agentCallTool({ ...ref, request });
      } catch (error) {
        if (isCancellation(error)) throw error;
        const cause = (error as { cause?: unknown }).cause;
        const message = cause instanceof Error ? cause.message : String(error);
        return { content: `The tool call failed: ${message}`, error: message, duration_ms: 0 };
      }
    },
    loadMemory: (key, window) => sideEffects.agentLoadMemory({ ...ref, key, window }),
    saveMemory: (key, turn) => sideEffects.agentSaveMemory({ ...ref, key, turn }),
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
