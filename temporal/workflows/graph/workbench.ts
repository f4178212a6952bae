import type { GraphNode, GraphPlan, RetryScope } from '@weft/graph/runtime';
import { retryScope, testRunScope } from '@weft/graph/runtime';
import {
  disabledHandle,
  handleOfOutput,
  replaysFromRecording,
  type WorkflowNodeType,
} from '@weft/nodes/runtime';
import type { LoadedExecution, StepError } from '../../shared';
import { local } from './activities';
import type { LoopScope } from './state';

/**
 * What happens to a node instead of running it (DESIGN §15), decided in one place before it runs
 * (after `stops`: a test run's nodes past stop_after are skipped steps with source `stopped`):
 * - `use`: the step completes with an output it did not compute: `disabled` (its input passed
 *   through, any mode), `pin` (test runs), `recorded` (another execution's step: before start_at,
 *   a side effect in a replay, or a step the partial execution being retried completed).
 * - `fail`: a replayed side effect whose original failed (the same error), or that has neither a
 *   recording nor a pin (`replay_no_recording`); a step before start_at with neither a pin nor a
 *   completed recording (`no_recording`).
 */
export type StepDecision =
  | { kind: 'run' }
  | { kind: 'use'; output: unknown; handle?: string; source: 'pin' | 'recorded' | 'disabled' }
  | { kind: 'fail'; error: StepError };

export const RUN: StepDecision = { kind: 'run' };

/** What a node sees when deciding: the outputs so far and which of its inputs are live. */
export interface DecisionInputs {
  outputs: Record<string, unknown>;
  liveInputs: string[];
  iteration: number;
  loop: LoopScope;
  /** The trigger payload as it may leave the run (what a disabled first step passes on). */
  trigger: unknown;
}

export class Workbench {
  private readonly test: boolean;
  private readonly replay: boolean;
  private readonly sourceExecutionId: string | undefined;
  private readonly before: Set<string>;
  private readonly stopped: Set<string>;
  /** A production retry of a partial execution: what runs again, loaded on first use. */
  private readonly retryOf: string | undefined;
  private retryScope: Promise<RetryScope> | undefined;

  constructor(
    private readonly execution: LoadedExecution,
    private readonly plan: GraphPlan,
    private readonly kindOf: (node: GraphNode) => WorkflowNodeType,
    /** The run's history budget (GraphRun.inlineLimit), for the outputs a recording brings in. */
    private readonly inlineLimit: () => { inlineLimitBytes?: number },
  ) {
    this.test = execution.mode === 'test';
    this.replay = this.test && Boolean(execution.replayOf);
    const options = execution.testOptions ?? {};
    this.retryOf = this.test ? undefined : (execution.retryOf ?? undefined);
    this.sourceExecutionId = options.source_execution_id ?? this.retryOf;
    const scope = this.test
      ? testRunScope(plan, options)
      : { before: new Set<string>(), stopped: new Set<string>() };
    this.before = scope.before;
    this.stopped = scope.stopped;
  }

  /**
   * Whether `decide` may answer anything but RUN. Synchronous on purpose: production runs without
   * disabled steps never await it, so their workflow histories stay what they were.
   */
  applies(node: GraphNode): boolean {
    return this.test || this.retryOf !== undefined || node.disabled === true;
  }

  /** Whether a test run leaves this node out: past stop_after, or on a branch start_at does not need. */
  stops(nodeId: string): boolean {
    return this.stopped.has(nodeId);
  }

  async decide(node: GraphNode, inputs: DecisionInputs): Promise<StepDecision> {
    const kind = this.kindOf(node);
    if (node.disabled) {
      return {
        kind: 'use',
        output: passThrough(inputs),
        handle: disabledHandle(kind),
        source: 'disabled',
      };
    }
    if (this.retryOf) return this.retryDecision(node, inputs.iteration);
    if (!this.test) return RUN;
    const pin = node.pinned_output;
    const usePin = (): StepDecision | undefined =>
      pin === undefined
        ? undefined
        : { kind: 'use', output: pin, handle: handleOfOutput(kind, pin), source: 'pin' };
    if (this.replay) {
      // Computed steps run for real; side effects replay the original, else the pin, else fail.
      if (!replaysFromRecording(kind)) return RUN;
      const recorded = await this.recorded(node, inputs.iteration);
      if (recorded?.status === 'completed') return recorded.decision;
      if (recorded?.status === 'failed') return { kind: 'fail', error: recorded.error };
      return (
        usePin() ?? {
          kind: 'fail',
          error: {
            code: 'replay_no_recording',
            message: `Step "${node.id}" has no recorded output in the original execution and no pin, so the replay cannot run it without calling out.`,
          },
        }
      );
    }
    const pinned = usePin();
    if (pinned) return pinned;
    if (this.before.has(node.id)) {
      // Before start_at: the source's output when it completed there, never a run for real
      // (DESIGN §15: "run from B" must not send the e-mail step the source run failed).
      const recorded = await this.recorded(node, inputs.iteration);
      if (recorded?.status === 'completed') return recorded.decision;
      return {
        kind: 'fail',
        error: {
          code: 'no_recording',
          message: `Step "${node.id}" comes before the start step and has no completed output in the source run; pin its output, or run the whole workflow first.`,
        },
      };
    }
    return RUN;
  }

  /**
   * A retry of a partial execution: the failed steps and what follows them run; any other step
   * takes the original's completed output (pins never apply to production runs), or runs when the
   * original has none (a step added since, or one the original skipped).
   */
  private async retryDecision(node: GraphNode, iteration: number): Promise<StepDecision> {
    this.retryScope ??= local
      .failedSteps({ organizationId: this.execution.organizationId, executionId: this.retryOf as string })
      .then((failed) => retryScope(this.plan, failed));
    const scope = await this.retryScope;
    if (scope.always.has(node.id) || scope.at.has(`${node.id}:${iteration}`)) return RUN;
    const recorded = await this.recorded(node, iteration);
    return recorded?.status === 'completed' ? recorded.decision : RUN;
  }

  private async recorded(node: GraphNode, iteration: number) {
    if (!this.sourceExecutionId) return undefined;
    const step = await local.recordedStep({
      organizationId: this.execution.organizationId,
      executionId: this.execution.executionId,
      sourceExecutionId: this.sourceExecutionId,
      nodeId: node.id,
      nodeType: node.type,
      iteration,
      // Past the history budget a recorded output goes to PostgreSQL too, like a run's output.
      ...this.inlineLimit(),
    });
    if (!step) return undefined;
    if (step.status === 'failed') return step;
    const decision: StepDecision = {
      kind: 'use',
      output: step.output,
      handle: handleOfOutput(this.kindOf(node), step.output),
      source: 'recorded',
    };
    return { status: 'completed' as const, decision };
  }
}

/**
 * A disabled step's output: its one live input's output, several inputs keyed by node id (as a
 * merge does), or, for a first step, the trigger payload (the loop item inside a loop body).
 */
function passThrough({ outputs, liveInputs, loop, trigger }: DecisionInputs): unknown {
  const outputOf = (id: string) => (id in outputs ? outputs[id] : loop ? loop.item : null);
  if (liveInputs.length === 0) return loop ? loop.item : trigger;
  if (liveInputs.length === 1) return outputOf(liveInputs[0] as string);
  return Object.fromEntries(liveInputs.map((id) => [id, outputOf(id)]));
}
