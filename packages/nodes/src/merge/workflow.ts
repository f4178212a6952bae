import { defineWorkflowNode } from '../workflow-node';

/** action.merge (`wait_all`): each live input's output by node id; references to stored outputs pass as they are. */
export const mergeWorkflow = defineWorkflowNode({
  type: 'action.merge',
  runsIn: 'workflow',
  passesStoredOutputs: true,
  execute: async (_config, ctx) => ({ output: ctx.liveInputs() }),
});
