import { defineWorkflowNode } from '../workflow-node';

/** action.chat.send_template runs in an activity; its recipient is a phone number, stored masked. */
export const chatSendTemplateWorkflow = defineWorkflowNode({
  type: 'action.chat.send_template',
  runsIn: 'activity',
  maskedFields: ['to'],
});
