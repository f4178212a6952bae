/** The shapes the interpreter reports and loads: shared by the execution and webhook services. */

export interface StepError {
  message: string;
  code: string;
  /** What the node said when failing, e.g. the HTTP answer (status, headers, body) that failed it. */
  details?: unknown;
}

export type ExecutionStatus =
  | 'pending'
  | 'running'
  | 'waiting'
  | 'success'
  | 'partial'
  | 'failed'
  | 'cancelled';

export interface StepProgress {
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

export interface ExecutionProgress {
  executionId: string;
  organizationId: string;
  status: ExecutionStatus;
  attempt: number;
  error?: StepError | null;
  completedAt?: string;
  steps: StepProgress[];
}

export interface LoadedExecution {
  executionId: string;
  organizationId: string;
  workflowId: string;
  workflowName: string;
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
  status: string;
  attempt: number;
}
