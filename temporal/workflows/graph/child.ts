import { executeChild, ParentClosePolicy } from '@temporalio/workflow';
import type { executeGraph } from '../execute-graph';
import { sideEffects } from './activities';
import type { GraphRun } from './state';

/**
 * action.workflow.execute: records a child execution of the same organization, then either starts it
 * and moves on (`wait: false`) or runs it as a Temporal child workflow and waits for its status.
 */
export async function runChildWorkflow(run: GraphRun, config: Record<string, unknown>) {
  const { execution } = run;
  const child = config as unknown as { workflow_id: string; input?: unknown; wait: boolean };
  const childId = await sideEffects.prepareChildExecution({
    organizationId: execution.organizationId,
    parentExecutionId: execution.executionId,
    workflowId: child.workflow_id,
    payload: child.input ?? run.outgoingPayload,
  });
  const childArgs = { executionId: childId, organizationId: execution.organizationId };
  if (!child.wait) {
    await sideEffects.startExecutions({ organizationId: execution.organizationId, executionIds: [childId] });
    return { output: { execution_id: childId, status: 'pending' } };
  }
  // By type name: importing the workflow function here would make the modules import each other.
  const result = await executeChild<typeof executeGraph>('executeGraph', {
    workflowId: `exec-${childId}`,
    args: [childArgs],
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
  });
  return { output: { execution_id: childId, status: result.status } };
}
