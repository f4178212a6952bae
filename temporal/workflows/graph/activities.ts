import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

/** Loading and reporting: local activities (same worker, no task-queue round trip), retried quickly. */
export const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

export const SIDE_EFFECT_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 3,
} as const;

/**
 * Side effects: explicit timeouts, exponential retries; failures the node itself reports are final.
 * They heartbeat, so a crashed worker's activities are retried elsewhere after 10 s, not 5 minutes.
 */
export const sideEffects = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: SIDE_EFFECT_RETRY,
});

/**
 * The first attempt of a short side effect as a local activity (ActivityNodeTraits.localUpToMs): it
 * runs in the worker holding the workflow task, so neither its start nor its result waits for a
 * task-queue round trip. One attempt only, so that no backoff holds the workflow task: a retry is
 * a regular activity's (side-effect.ts). Its deadline leaves room for connecting and storing the
 * output.
 */
export function localSideEffect(callTimeoutMs: number) {
  return proxyLocalActivities<Activities>({
    startToCloseTimeout: callTimeoutMs + 10_000,
    retry: { maximumAttempts: 1 },
  });
}

/**
 * Stop 28's local calls, every attempt local with the side effects' retries: only for replaying
 * and finishing its executions (side-effect.ts, `local-short-calls`).
 */
export function legacyLocalSideEffect(callTimeoutMs: number) {
  return proxyLocalActivities<Activities>({
    startToCloseTimeout: callTimeoutMs + 10_000,
    retry: SIDE_EFFECT_RETRY,
  });
}

/** The code sandbox blocks its thread while user code runs (up to 30 s), so it cannot heartbeat. */
export const blocking = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: SIDE_EFFECT_RETRY,
});

/**
 * The AI agent's model calls: retried like side effects (a repeated call costs tokens only), with
 * room for a slow model.
 */
export const agentModel = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { ...SIDE_EFFECT_RETRY, maximumAttempts: 4 },
});

/**
 * The AI agent's tool calls: MCP has no idempotency key, so a call is made once; a failure (a
 * crashed worker included) goes back to the model as the tool's result (ai-agents-mcp.md §3.6).
 */
export const agentTool = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});
