import { defineWorkflowNode } from '../workflow-node';

/**
 * action.http_request runs in an activity; its config may name credentials, rendered only there.
 * Never as a local activity: a local call's result is recorded only with the workflow task that
 * follows it, so a worker too busy to complete that task in time runs the call again (the
 * durability test saw a completed call repeated with no worker killed). A regular activity's
 * result is recorded by Temporal the moment it returns (docs/decisions.md, "Engine efficiency").
 */
export const httpRequestWorkflow = defineWorkflowNode({
  type: 'action.http_request',
  runsIn: 'activity',
  credentials: true,
});
