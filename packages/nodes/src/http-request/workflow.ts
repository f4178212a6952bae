import { defineWorkflowNode } from '../workflow-node';

/**
 * action.http_request runs in an activity; its config may name credentials, rendered only there.
 * Not as a local activity: a local call holds its workflow task slot until the server answers, so
 * one organization's slow server held up every other organization's runs (local-activities.test.ts;
 * docs/decisions.md, "Engine efficiency").
 */
export const httpRequestWorkflow = defineWorkflowNode({
  type: 'action.http_request',
  runsIn: 'activity',
  credentials: true,
});
