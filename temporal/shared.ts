import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Sinks } from '@temporalio/workflow';

/** Search attributes shared by the API (which starts workflows), the worker and the dev server. Public: stable. */
export const SEARCH_ATTRIBUTES = {
  organizationId: defineSearchAttributeKey('WeftOrgId', SearchAttributeType.KEYWORD),
  workflowId: defineSearchAttributeKey('WeftWorkflowId', SearchAttributeType.KEYWORD),
  trigger: defineSearchAttributeKey('WeftTrigger', SearchAttributeType.KEYWORD),
} as const;

/** Temporal workflow id of an execution. */
export function executionWorkflowId(executionId: string): string {
  return `exec-${executionId}`;
}

// One definition of what the interpreter reports, shared with the service that stores it (type-only:
// nothing of @weft/domain reaches the workflow bundle).
export type {
  ExecutionProgress as ProgressUpdate,
  ExecutionStatus,
  LoadedExecution,
  StepError,
  StepProgress as StepRecord,
} from '@weft/domain';

/**
 * What workflow code reports to the worker process outside its history (Temporal sinks): metrics
 * counted once per real run, never again on replay. Implemented in sinks.ts.
 */
export interface WeftSinks extends Sinks {
  metrics: {
    /** An execution began to run (its recorded trigger: api, event, schedule …). */
    executionStarted(trigger: string): void;
  };
}

/** Signals and queries of the execution workflow. Names are public API: stable. */
export const RETRY_SIGNAL = 'retry';
export interface RetrySignal {
  /** The failed node's config as currently saved in the workflow, when the operator edited it. */
  nodeConfig?: Record<string, unknown>;
  attempt: number;
}
export const EVENT_SIGNAL = 'event';
export interface EventSignal {
  event: string;
  payload: unknown;
}

/** A decision on an approval the execution waits for (written to PostgreSQL first; the row is the truth). */
export const APPROVAL_SIGNAL = 'approval';
export type { ApprovalOutcome as ApprovalSignal } from '@weft/domain';

/** Signals of the cart watcher (workflow `cartWatcher`, id from cartWatcherWorkflowId). Public: stable. */
export const CART_ACTIVITY_SIGNAL = 'cartActivity';
export type { CartActivity as CartActivitySignal } from '@weft/domain';
export const CART_CLOSED_SIGNAL = 'cartClosed';

/** Temporal workflow id of an outbound webhook delivery (workflow `deliverWebhook`): one per delivery, ever. */
export function deliveryWorkflowId(deliveryId: string): string {
  return `delivery-${deliveryId}`;
}
export type { DeliveryRetryPolicy } from '@weft/domain';
export interface DeliverWebhookInput {
  organizationId: string;
  deliveryId: string;
  /** Overrides of the production retry policy (tests use short intervals). */
  retry?: { initialIntervalMs?: number; maximumIntervalMs?: number };
}
