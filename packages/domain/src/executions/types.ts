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

export type ExecutionMode = 'production' | 'test';

/** Where a step's output came from when its node did not run (see execution_steps.source). */
export type StepSource = 'pin' | 'recorded' | 'disabled' | 'stopped';

/** A test run's options (POST /workflows/{id}/test), as stored on the execution. */
export interface TestOptions {
  start_at?: string;
  stop_after?: string;
  /** Where nodes before start_at (and a replay's side effects) take recorded outputs from. */
  source_execution_id?: string;
}

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
  /** Absent: the node ran. */
  source?: StepSource;
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
  /** Absent in snapshots recorded before the workbench: production. */
  mode?: ExecutionMode;
  replayOf?: string | null;
  testOptions?: TestOptions | null;
  /** A production retry of a partial execution: the execution whose completed steps it reuses. */
  retryOf?: string | null;
}
