import { defineWorkflowNode } from '../workflow-node';
import { HTTP_DEFAULT_TIMEOUT_MS, HTTP_LOCAL_MAX_TIMEOUT_MS } from './timeouts';

/**
 * action.http_request runs in an activity; its config may name credentials, rendered only there.
 * A call whose timeout is at most 30 s (the default) tries its first attempt as a local activity:
 * it sends an Idempotency-Key, so a repeat after a crash is as safe as a regular activity's retry,
 * and it saves the two task-queue trips around it (docs/decisions.md, "Engine efficiency").
 */
export const httpRequestWorkflow = defineWorkflowNode({
  type: 'action.http_request',
  runsIn: 'activity',
  credentials: true,
  localUpToMs: (config) => {
    const timeout = typeof config.timeout_ms === 'number' ? config.timeout_ms : HTTP_DEFAULT_TIMEOUT_MS;
    return timeout <= HTTP_LOCAL_MAX_TIMEOUT_MS ? timeout : undefined;
  },
});
