import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Names shared by the API (which starts workflows), the worker and the dev server. Public: stable. */
export const DEFAULT_TASK_QUEUE = 'weft';

export const SEARCH_ATTRIBUTES = {
  organizationId: defineSearchAttributeKey('WeftOrgId', SearchAttributeType.KEYWORD),
  workflowId: defineSearchAttributeKey('WeftWorkflowId', SearchAttributeType.KEYWORD),
  trigger: defineSearchAttributeKey('WeftTrigger', SearchAttributeType.KEYWORD),
} as const;

/** Temporal workflow id of an execution. */
export function executionWorkflowId(executionId: string): string {
  return `exec-${executionId}`;
}

/** What an execution workflow starts with. Small on purpose: it is stored in Temporal history. */
export interface ExecutionInput {
  executionId: string;
  organizationId: string;
  workflowId: string;
  workflowName: string;
  /** The graph snapshot the execution runs (trigger config, nodes, edges). */
  graph: {
    trigger_type: string;
    trigger_config: Record<string, unknown>;
    nodes: unknown[];
    edges: unknown[];
  };
  trigger: string;
  event: string | null;
  payload: unknown;
  startedAt: string;
  /** Timezone for `date:` pipes (schedules carry theirs); UTC otherwise. */
  timezone: string;
  /** Set when an execution was started by another one (action.workflow.execute). */
  parentExecutionId?: string;
}

export interface StepError {
  message: string;
  code: string;
}

export interface StepRecord {
  nodeId: string;
  nodeType: string;
  iteration: number;
  position: number;
  status: 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';
  attempt: number;
  output?: unknown;
  resolvedConfig?: unknown;
  error?: StepError | null;
  startedAt?: string;
  completedAt?: string;
  durationMs?: number;
}

export type ExecutionStatus =
  | 'pending'
  | 'running'
  | 'waiting'
  | 'success'
  | 'partial'
  | 'failed'
  | 'cancelled';

export interface ProgressUpdate {
  executionId: string;
  organizationId: string;
  status: ExecutionStatus;
  attempt: number;
  error?: StepError | null;
  /** Set when the execution reached a terminal status. */
  completedAt?: string;
  steps: StepRecord[];
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
