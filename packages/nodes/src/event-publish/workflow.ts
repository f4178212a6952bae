import { defineWorkflowNode } from '../workflow-node';

/** action.event.publish runs in an activity that gets the trigger payload (its default payload). */
export const eventPublishWorkflow = defineWorkflowNode({
  type: 'action.event.publish',
  runsIn: 'activity',
  reads: 'trigger',
});
