import type { ApprovalOutcome } from '../approvals/types';
import type { CartActivity } from '../carts/cart-activity';
import type { TimedWorkflow } from '../triggers/timed-workflow';
import type { LoadedExecution } from './types';

/**
 * What service verbs need from the execution engine (Temporal). Implemented in temporal/temporal-engine.ts
 * and injected, so services stay free of Temporal client code and tests can run verbs alone.
 */
export interface ExecutionEngine {
  /**
   * Starts the Temporal workflows of executions already recorded as `pending`. Idempotent.
   * `snapshots` (optional) are the just-recorded rows, handed to the workflows so they need not read them.
   */
  start(organizationId: string, executionIds: string[], snapshots?: LoadedExecution[]): Promise<void>;
  /** Resumes a failed execution at its failed node. Resolves false when the run no longer exists. */
  retry(
    executionId: string,
    signal: { attempt: number; nodeConfig?: Record<string, unknown> },
  ): Promise<boolean>;
  /** Requests cancellation. Resolves false when the run no longer exists. */
  cancel(executionId: string): Promise<boolean>;
  /**
   * Delivers a published event to the executions waiting for it (action.wait_for_event), which the
   * caller found in PostgreSQL; an execution that ended meanwhile is skipped.
   */
  deliverEvent(executionIds: string[], event: string, payload: unknown): Promise<void>;
  /**
   * Delivers a decision already written to PostgreSQL to the execution waiting for it (a Temporal
   * signal: accepted even while no worker runs). An execution that ended meanwhile is skipped.
   */
  deliverApproval(executionId: string, outcome: ApprovalOutcome): Promise<void>;
  /** Starts a cart's abandonment timer, or restarts it from now with `activity` as the last event. */
  touchCart(organizationId: string, cartId: string, activity: CartActivity): Promise<void>;
  /** Stops a cart's timer without firing cart.abandoned (the cart became an order). No timer: no-op. */
  closeCart(organizationId: string, cartId: string): Promise<void>;
  /**
   * Brings a schedule- or polling-triggered workflow's Temporal Schedule in line with its saved state:
   * created or updated while active, paused while inactive or draft, deleted for other trigger types.
   */
  syncWorkflowTriggers(workflow: TimedWorkflow): Promise<void>;
  /** Deletes the Temporal Schedules of a deleted workflow. No schedule: no-op. */
  removeWorkflowTriggers(workflowId: string): Promise<void>;
  /** Starts the delivery workflows (`delivery-<id>`) of outbound webhook deliveries already recorded. Idempotent. */
  startDeliveries(organizationId: string, deliveryIds: string[]): Promise<void>;
}
