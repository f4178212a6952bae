import { defineWorkflowNode } from '../workflow-node';

/**
 * action.workflow.execute: records a child execution of the same organization, then either starts it
 * and moves on (`wait: false`) or runs it as a Temporal child workflow and waits for its status.
 */
export const workflowExecuteWorkflow = defineWorkflowNode({
  type: 'action.workflow.execute',
  runsIn: 'workflow',
  inReplay: 'recorded',
  async execute(config, ctx) {
    const child = config as unknown as { workflow_id: string; input?: unknown; wait: boolean };
    const childId = await ctx.children.prepare(child.workflow_id, child.input ?? ctx.outgoingPayload);
    if (!child.wait) {
      await ctx.children.start(childId);
      return { output: { execution_id: childId, status: 'pending' } };
    }
    const result = await ctx.children.run(childId);
    return { output: { execution_id: childId, status: result.status } };
  },
});
