import { patched, sleep, workflowInfo } from '@temporalio/workflow';
import {
  containsStoredOutput,
  type ExpressionScope,
  type GraphEdge,
  type GraphNode,
  type GraphPlan,
  planGraph,
  referencesCredentials,
} from '@weft/graph/runtime';
import { isLoop, type WorkflowNodeType, workflowNodeOf } from '@weft/nodes/runtime';
import type {
  ApprovalSignal,
  EventSignal,
  ExecutionStatus,
  LoadedExecution,
  RetrySignal,
  StepError,
} from '../../shared';
import { StepReporter } from './progress';
import { Workbench } from './workbench';

/** A loop's checkpoint reports its steps instead of sleeping 1 ms (GraphRun.checkpoint). */
const LOOP_CHECKPOINT_BY_REPORT = 'loop-checkpoint-by-report';

/** History size after which activity outputs always go to PostgreSQL (Temporal's limit is 50 MB). */
const HISTORY_INLINE_BUDGET_BYTES = 10 * 1024 * 1024;

/** The loop item and its place, as expressions see it (`{{loop.item}}`). */
export type LoopScope = ExpressionScope['loop'];

/** A chat run's `trigger.sender` (the number, for this run only) is stored as `trigger.from` (masked). */
function chatSenderRedaction(execution: LoadedExecution) {
  const payload = execution.payload as { sender?: unknown; from?: unknown } | null;
  if (execution.trigger !== 'chat' || typeof payload?.sender !== 'string' || payload.sender.length < 7)
    return undefined;
  return { value: payload.sender, shown: typeof payload.from === 'string' ? payload.from : '[phone number]' };
}

/** A chat run's payload without `sender`, which must not be stored anywhere (see chatSenderRedaction). */
function withoutRunOnlyKeys(execution: LoadedExecution): unknown {
  const payload = execution.payload as Record<string, unknown> | null;
  if (
    execution.trigger !== 'chat' ||
    payload === null ||
    typeof payload !== 'object' ||
    !('sender' in payload)
  ) {
    return execution.payload;
  }
  const { sender: _sender, ...rest } = payload;
  return rest;
}

/** A node failed: what the step records, and the config it ran with. */
export class StepFailure extends Error {
  constructor(
    readonly error: StepError,
    readonly resolvedConfig: unknown,
    /** `recorded`: a replay repeated the original's failure instead of running the node. */
    readonly source?: 'recorded',
  ) {
    super(error.message);
  }
}

/**
 * A test run or replay stopped by an abort failure: it ends `failed` at once (it is re-run from the
 * workbench, never retried), so nothing parks for the retry window. The execution workflow catches it.
 */
export class TestRunFailed extends Error {}

/**
 * Everything one execution's interpreter knows while it runs: the plan of its graph, its status and
 * attempt, the step records not yet reported, and what signals brought in.
 */
export class GraphRun {
  readonly plan: GraphPlan;
  readonly timezone: string;
  readonly progress: StepReporter;
  /** Pins, disabled steps, test-run bounds and replays: what runs instead of a node. */
  readonly workbench: Workbench;
  status: ExecutionStatus = 'running';
  attempt: number;
  anyFailed = false;
  /** Order in which steps started; the step list is sorted by it. */
  position = 0;
  retryRequest: RetrySignal | undefined;
  readonly receivedEvents: EventSignal[] = [];
  /** Decisions signalled to this execution, by approval id (the approvals table is the truth). */
  readonly approvalOutcomes = new Map<string, ApprovalSignal>();
  /** Nodes whose output holds a reference to a stored (large) output; see @weft/graph stored-output. */
  readonly nodesWithStoredOutputs = new Set<string>();

  /** The trigger as it may leave this run (child executions, published events): run-only keys removed. */
  readonly outgoingPayload: unknown;

  constructor(readonly execution: LoadedExecution) {
    this.plan = planGraph(
      execution.graph.nodes as GraphNode[],
      execution.graph.edges as GraphEdge[],
      (node) => isLoop(this.kindOf(node)),
    );
    this.timezone = String((execution.graph.trigger_config as { timezone?: unknown }).timezone ?? 'UTC');
    this.attempt = execution.attempt;
    this.outgoingPayload = withoutRunOnlyKeys(execution);
    this.workbench = new Workbench(
      execution,
      this.plan,
      (node) => this.kindOf(node),
      () => this.inlineLimit(),
    );
    this.progress = new StepReporter(
      { executionId: execution.executionId, organizationId: execution.organizationId },
      chatSenderRedaction(execution),
    );
  }

  /**
   * Whether steps are reported before a node that can take a while instead of after each side
   * effect (set at the start of the run; histories recorded before it reported after each one).
   */
  reportsBeforeSlowSteps = false;

  /**
   * Before a node that can take a while (a side effect, a wait, a child run): what ran since the
   * last report becomes visible while it runs. A side effect's own step then travels with the next
   * report, so a short flow writes its progress once at its end, not once per call as well.
   */
  async reportBeforeSlowStep(): Promise<void> {
    if (this.reportsBeforeSlowSteps && this.progress.pending) await this.report();
  }

  /**
   * Ends the workflow activation mid-loop, showing the steps recorded so far (WorkflowNodeContext).
   * Histories recorded before the patch slept 1 ms there instead.
   */
  async checkpoint(): Promise<void> {
    if (patched(LOOP_CHECKPOINT_BY_REPORT)) await this.report();
    else await sleep(1);
  }

  /** Writes the unreported steps with the current status. */
  report(extra: { error?: StepError | null; completedAt?: string } = {}): Promise<void> {
    return this.progress.report(this.status, this.attempt, extra);
  }

  scopeFor(outputs: Record<string, unknown>, loop?: LoopScope): ExpressionScope {
    return {
      trigger: this.execution.payload,
      nodes: outputs,
      loop,
      execution: {
        id: this.execution.executionId,
        workflow_id: this.execution.workflowId,
        started_at: this.execution.startedAt,
      },
    };
  }

  /** `<execution_id>:<node_id>[:<loop_index>]` (DESIGN §12.1). */
  stepKey(node: GraphNode, iteration: number): string {
    return `${this.execution.executionId}:${node.id}${iteration >= 0 ? `:${iteration}` : ''}`;
  }

  /** What the interpreter knows of a node's type, in the version the node was built with. */
  kindOf(node: GraphNode): WorkflowNodeType {
    return workflowNodeOf(node.type, node.type_version ?? 1);
  }

  /** The node's type version for an activity's input: absent for 1, so inputs recorded before versions stay as they were. */
  typeVersionArg(node: GraphNode): { typeVersion?: number } {
    return node.type_version !== undefined && node.type_version !== 1
      ? { typeVersion: node.type_version }
      : {};
  }

  /** Whether the node's config names a node with a stored output, or its loop item is one. */
  readsStoredOutput(kind: WorkflowNodeType, templated: Record<string, unknown>, loop: LoopScope): boolean {
    if (kind.passesStoredOutputs) return false; // merge and code pass references on
    if (loop && containsStoredOutput(loop.item)) return true;
    if (this.nodesWithStoredOutputs.size === 0) return false;
    const text = JSON.stringify(templated);
    return [...this.nodesWithStoredOutputs].some((id) => text.includes(id));
  }

  /**
   * Whether the config names credentials (then only an activity may render it). Only the types
   * allowed to (checked at save) are looked at, so other nodes pay nothing for it.
   */
  readsCredentials(kind: WorkflowNodeType, templated: Record<string, unknown>): boolean {
    return kind.credentials === true && referencesCredentials(templated);
  }

  /**
   * Once the history passes its budget, every further activity output goes to PostgreSQL whatever
   * its size, so thousands of mid-sized outputs cannot reach Temporal's 50 MB history limit. (The
   * field is absent below the budget, which keeps earlier histories' activity inputs unchanged.)
   */
  inlineLimit(): { inlineLimitBytes?: number } {
    return workflowInfo().historySize > HISTORY_INLINE_BUDGET_BYTES ? { inlineLimitBytes: 0 } : {};
  }

  /** Reports the execution as waiting around a durable pause (delay, wait), then as running again. */
  async pauseWithStatus(node: GraphNode, iteration: number, config: unknown, pause: () => Promise<void>) {
    this.status = 'waiting';
    this.progress.record({
      nodeId: node.id,
      nodeType: node.type,
      iteration,
      position: this.position,
      status: 'waiting',
      attempt: this.attempt,
      resolvedConfig: config,
      startedAt: new Date().toISOString(),
    });
    await this.report();
    await pause();
    this.status = 'running';
  }
}
