import { defineWorkflowNode } from '../workflow-node';
import { HTTP_DEFAULT_TIMEOUT_MS, HTTP_LOCAL_MAX_TIMEOUT_MS } from './timeouts';

/**
 * action.http_request runs in an activity; its config may name credentials, rendered only there.
 * A call whose timeout is at most 30 s (the default) tries its first attempt as a local activity,
 * which saves the two task-queue trips around it (docs/decisions.md, "Engine efficiency"). Its
 * answer is recorded before the activity returns, so a workflow task lost after the call (a worker
 * too busy to complete it in time) does not make the call again (local-call-results.ts).
 */
export const httpRequestWorkflow = defineWorkflowNode({
  type: 'action.http_request',
  runsIn: 'activity',
  credentials: true,
  localUpToMs: (config) => {
    const timeout = typeof config.timeout_ms === 'number' ? config.timeout_ms : HTTP_DEFAULT_TIMEOUT_MS;
    return timeout <= HTTP_LOCAL_MAX_TIMEOUT_MS ? timeout : undefined;
  },
  // Histories recorded before hold regular activities for HTTP requests, and may hold the chat
  // sends' `local-first-calls` marker too.
  localSincePatch: 'local-first-http-calls',
});
