import { defineWorkflowNode } from '../workflow-node';

/** action.chat.send runs in an activity; its recipient is a phone number, stored masked. */
export const chatSendWorkflow = defineWorkflowNode({
  type: 'action.chat.send',
  runsIn: 'activity',
  maskedFields: ['to'],
});
