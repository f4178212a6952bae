/**
 * What the interpreter knows about a node type, from the type's `workflow.ts`: where it runs, how
 * its activity is called, what of its config is masked or left unrendered, and, for types that run
 * in workflow code, the code itself. Zod-free and free of I/O and of Temporal: it is bundled into
 * workflow code, where the interpreter hands it the Temporal primitives it needs (`WorkflowNodeContext`).
 */

import type { AgentRuntime } from './ai-agent/contract';

/** A failure a workflow-side node reports with its own code (the failed step's `error.code`). */
export class WorkflowNodeError extends Error {
  override readonly name = 'WorkflowNodeError';

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a node produced. */
export interface EvaluatedNode {
  output: unknown;
  /** Which output handle fires; undefined = the node's only output. */
  handle?: string;
}

/** An event signalled to a waiting execution. */
export interface ReceivedEvent {
  event: string;
  payload: unknown;
}

/**
 * A decision a node asks a person for (action.approval; the agent's gate on a tool call). The step
 * shows `waiting` until it is decided in the inbox (or by a signed e-mail link, or a chat reply) or
 * its deadline passes.
 */
export interface ApprovalRequest {
  /** Tells apart several approvals of one step (the agent: the tool call id); absent for one. */
  key?: string;
  title: string;
  message: string;
  /** How long to wait; absent waits for ever (a durable wait costs nothing while idle). */
  timeoutMs?: number;
  /** At the deadline: decide `approve` or `reject`, or `fail` the step (code `approval_timeout`). */
  onTimeout: 'approve' | 'reject' | 'fail';
  /** Who hears of it besides the inbox: e-mail addresses (a signed link each), one chat phone number. */
  notify?: { email?: string[]; chat?: string };
}

/** How an approval was decided (action.approval's output, with `timed_out`). */
export interface ApprovalResult {
  approval_id: string;
  decision: 'approve' | 'reject';
  decided_by: string;
  comment: string | null;
  decided_at: string;
  via: 'app' | 'email' | 'chat' | 'timeout';
  timed_out: boolean;
}

/**
 * What the interpreter offers a node that runs in workflow code. Each call keeps its Temporal
 * meaning (a durable timer, a condition, an activity, a child workflow), in the order it is made.
 */
export interface WorkflowNodeContext {
  /** The outputs of the nodes whose edges into this one are live, by node id. */
  liveInputs(): Record<string, unknown>;
  /** Reports the step (and the execution) as waiting while `during` runs, then running again. */
  pause(during: () => Promise<void>): Promise<void>;
  /** A durable timer. */
  sleep(ms: number): Promise<void>;
  /**
   * Writes the steps recorded so far (a local activity: no trip to the Temporal server) and ends
   * the workflow activation. A long loop calls it every few hundred iterations.
   */
  checkpoint(): Promise<void>;
  /** Resolves true as soon as `test` holds, false once `timeoutMs` passed. */
  waitUntil(test: () => boolean, timeoutMs: number): Promise<boolean>;
  /** The events signalled to this execution so far (wait_for_event looks for its own). */
  readonly receivedEvents: readonly ReceivedEvent[];
  /** The error that fails the step for good (not retried), with a code the step records: throw it. */
  failure(message: string, code: string): Error;
  /** Walks a loop node's body once for this item; resolves to the last output of the walk. */
  walkLoopBody(item: unknown, index: number, count: number): Promise<unknown>;
  /** The trigger payload as it may leave this run (run-only keys removed). */
  readonly outgoingPayload: unknown;
  /**
   * Asks a person (DESIGN §14): records the approval, notifies, waits durably with the step
   * `waiting`, and resolves with the decision, or at the deadline with `onTimeout` (`fail` throws).
   */
  requestApproval(request: ApprovalRequest): Promise<ApprovalResult>;
  /** Child executions of the same organization (action.workflow.execute). */
  readonly children: {
    /** Records a child execution and returns its id. */
    prepare(workflowId: string, payload: unknown): Promise<string>;
    /** Starts it without waiting. */
    start(executionId: string): Promise<void>;
    /** Runs it as a child workflow and waits for its final status. */
    run(executionId: string): Promise<{ status: string }>;
  };
  /** The AI agent's model calls, tool calls and memory, each its own activity (action.ai.agent). */
  readonly agent: AgentRuntime;
}

/** How a node type that runs in an activity is called. */
export interface ActivityNodeTraits {
  /**
   * `heartbeat`: runs on the event loop and heartbeats, so a dead worker is noticed in seconds.
   * `blocking`: holds its thread while it runs (the code sandbox), so it cannot heartbeat and gets
   * a short start-to-close timeout instead.
   */
  activity: 'heartbeat' | 'blocking';
  /** What upstream data the runner gets: none, the trigger payload, or every output and the loop item. */
  reads: 'nothing' | 'trigger' | 'upstream';
  /**
   * For short, retry-safe calls: the longest this call may take (ms, from its rendered config) when
   * its first attempt runs as a local activity, in the worker that holds the workflow task, with no
   * task-queue round trip before and after it (when the worker has a place for it: its retries and
   * the calls past its caps are regular activities); undefined runs it as a regular activity.
   */
  localUpToMs?: (config: Record<string, unknown>) => number | undefined;
  /**
   * The patch marker under which the type's first attempt became local (default
   * `local-first-calls`, the chat sends'). Histories recorded before it ran the type as a regular
   * activity and replay that way; a type that became local later needs its own marker, as a history
   * may hold the default one from another type's call.
   */
  localSincePatch?: string;
}

interface CommonTraits {
  type: string;
  /** Which version of the type this describes (see registry.ts); absent = every version. */
  version?: number;
  /** Config fields holding a phone number: a step stores them masked (DESIGN §12.4). */
  maskedFields?: readonly string[];
  /** Config fields that are never rendered (the code node's source: data reaches code as `input`). */
  unrenderedFields?: readonly string[];
  /** Whether its config may use `{{credentials.…}}` (then an activity renders it; checked at save). */
  credentials?: boolean;
  /** Whether it hands references to stored outputs on as they are, never reading them in the workflow. */
  passesStoredOutputs?: boolean;
  /**
   * What a replay does with it (DESIGN §15): `run` it for real (it only computes), or take the
   * original execution's `recorded` output (it reaches outside Weft or waits on the world).
   * Default: `recorded` for activity types, `run` for workflow types.
   */
  inReplay?: 'run' | 'recorded';
  /** The handle a branching type fired, read back from an output it did not compute now (a recording or a pin). */
  handleOf?: (output: Record<string, unknown>) => string | undefined;
  /** The handle a branching type fires when disabled (it passes its input through). */
  disabledHandle?: string;
}

/** A type that runs in an activity through its runner (`run.ts`). */
export interface ActivityWorkflowNode extends CommonTraits, Partial<ActivityNodeTraits> {
  runsIn: 'activity';
}

/** A type that runs in workflow code: a pure evaluator, or code using the interpreter's context. */
export interface InWorkflowNode extends CommonTraits {
  runsIn: 'workflow';
  /** Computes the result from the rendered config alone; also called by the stored-output activity. */
  evaluate?: (config: Record<string, unknown>) => EvaluatedNode;
  /** Runs with the interpreter's context (timers, waits, child workflows, the loop body). */
  execute?: (config: Record<string, unknown>, ctx: WorkflowNodeContext) => Promise<EvaluatedNode>;
  /** Pauses the execution (a timer, a wait): the execution shows as running from its start. */
  pauses?: boolean;
  /** Walks the nodes on its `each` output once per item (their walk is `ctx.walkLoopBody`). */
  loop?: boolean;
}

export type WorkflowNodeType = ActivityWorkflowNode | InWorkflowNode;

export function defineWorkflowNode<T extends WorkflowNodeType>(node: T): T {
  return node;
}

/** How an activity type is called when its workflow.ts says nothing else. */
export const DEFAULT_ACTIVITY_TRAITS: ActivityNodeTraits = { activity: 'heartbeat', reads: 'nothing' };

/** The activity traits of a type, defaults filled in. */
export function activityTraitsOf(node: WorkflowNodeType): ActivityNodeTraits {
  if (node.runsIn !== 'activity') return DEFAULT_ACTIVITY_TRAITS;
  return {
    activity: node.activity ?? DEFAULT_ACTIVITY_TRAITS.activity,
    reads: node.reads ?? DEFAULT_ACTIVITY_TRAITS.reads,
    ...(node.localUpToMs ? { localUpToMs: node.localUpToMs } : {}),
    ...(node.localSincePatch ? { localSincePatch: node.localSincePatch } : {}),
  };
}

/** Whether a node of this type walks the nodes on its `each` output once per item. */
export function isLoop(node: WorkflowNodeType): boolean {
  return node.runsIn === 'workflow' && node.loop === true;
}
