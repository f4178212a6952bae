/**
 * What service verbs need from the execution engine (Temporal). Implemented in temporal/engine.ts
 * and injected, so services stay free of Temporal client code and tests can run verbs alone.
 */
export interface ExecutionEngine {
  /** Starts the Temporal workflows of executions already recorded as `pending`. Idempotent. */
  start(organizationId: string, executionIds: string[]): Promise<void>;
  /** Resumes a failed execution at its failed node. Resolves false when the run no longer exists. */
  retry(
    executionId: string,
    signal: { attempt: number; nodeConfig?: Record<string, unknown> },
  ): Promise<boolean>;
  /** Requests cancellation. Resolves false when the run no longer exists. */
  cancel(executionId: string): Promise<boolean>;
  /** Delivers a published event to executions waiting for it (action.wait_for_event). */
  deliverEvent(organizationId: string, event: string, payload: unknown): Promise<void>;
}
