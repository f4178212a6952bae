import { defineWorkflowNode } from '../workflow-node';

/**
 * action.code runs in an activity that blocks its thread (the sandbox), with every upstream output
 * as `input`. Its source is never rendered, and it gets stored outputs as references (it resolves them).
 */
export const codeWorkflow = defineWorkflowNode({
  type: 'action.code',
  runsIn: 'activity',
  activity: 'blocking',
  reads: 'upstream',
  unrenderedFields: ['code'],
  passesStoredOutputs: true,
  // Sandboxed, no I/O: a replay runs it for real.
  inReplay: 'run',
});
