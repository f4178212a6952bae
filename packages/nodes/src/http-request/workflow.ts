import { defineWorkflowNode } from '../workflow-node';

/** action.http_request runs in an activity; its config may name credentials, rendered only there. */
export const httpRequestWorkflow = defineWorkflowNode({
  type: 'action.http_request',
  runsIn: 'activity',
  credentials: true,
});
