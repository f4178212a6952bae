import { CHAT_SEND_LOCAL_UP_TO_MS } from '../shared/chat/timeouts';
import { defineWorkflowNode } from '../workflow-node';

/**
 * action.chat.send_template runs in an activity; its recipient is a phone number, stored masked. Its
 * first attempt runs as a local activity: the message outbox makes a repeat after a crash safe (a
 * claimed send whose outcome is unknown is never sent again), as it does for a regular activity's
 * retry.
 */
export const chatSendTemplateWorkflow = defineWorkflowNode({
  type: 'action.chat.send_template',
  runsIn: 'activity',
  maskedFields: ['to'],
  localUpToMs: () => CHAT_SEND_LOCAL_UP_TO_MS,
});
