import { ApplicationFailure, condition, isCancellation, log, patched } from '@temporalio/workflow';
import {
  containsStoredOutput,
  DEFAULT_ON_FAILURE,
  ExpressionTooLargeError,
  type GraphNode,
  liveEdges,
  loopEntries,
  readyNodes,
  renderValue,
} from '@weft/graph/runtime';
import { redactResolvedConfig, WorkflowNodeError, type WorkflowNodeType } from '@weft/nodes/runtime';
import type { RetrySignal, StepError, StepRecord } from '../../shared';
import { sideEffects } from './activities';
import { type NodePlace, nodeContext } from './node-context';
import { runSideEffect } from './side-effect';
import { type GraphRun, type LoopScope, StepFailure, TestRunFailed } from './state';
import { RUN, type StepDecision } from './workbench';

type StepSource = NonNullable<StepRecord['source']>;

/** How long a failed execution stays resumable (DESIGN §12.5: every execution has a deadline). */
const EXECUTION_DEADLINE_MS = 7 * 24 * 3_600_000;

interface NodeResult {
  output: unknown;
  /** Which output handle fires; undefined = the node's only output. */
  handle?: string;
}

function stepErrorOf(error: unknown): StepError {
  if (error instanceof ExpressionTooLargeError) return { message: error.message, code: error.code };
  if (error instanceof WorkflowNodeError) return { message: error.message, code: error.code };
  if (error instanceof ApplicationFailure) return { message: error.message, code: error.type ?? 'error' };
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure) {
    // The node's own account of the failure (e.g. the HTTP answer) is shown and readable downstream.
    const details = cause.details?.[0];
    return {
      message: cause.message,
      code: cause.type ?? 'error',
      ...(details === undefined ? {} : { details }),
    };
  }
  return { message: error instanceof Error ? error.message : String(error), code: 'error' };
}

/** One walk over a set of nodes: the main graph, or a loop body for one item. */
export interface WalkScope {
  /** The nodes walked. */
  nodes: Set<string>;
  /** Where the walk starts: these run even without a live incoming edge. */
  entries: Set<string>;
  /** Every output so far, by node id; the walk adds its own. */
  outputs: Record<string, unknown>;
  /** Which handle each settled node fired (a loop's `each` when walking its body). */
  fired: Record<string, string | undefined>;
  /** The loop item's index, -1 outside loops. */
  iteration: number;
  loop: LoopScope;
}

/**
 * Walks a set of nodes until each one ran or was skipped (rules in @weft/graph plan); returns the
 * output of the last node run.
 */
export async function walk(run: GraphRun, scope: WalkScope): Promise<unknown> {
  const { nodes: scopeNodes, entries: entryNodes, outputs, fired, iteration, loop } = scope;
  const settled = new Set<string>(Object.keys(fired));
  const ran = new Set<string>(Object.keys(fired));
  let lastOutput: unknown = null;
  for (;;) {
    const ready = readyNodes(run.plan, scopeNodes, settled, fired);
    if (ready.length === 0) return lastOutput;
    await Promise.all(
      ready.map(async (id) => {
        const node = run.plan.byId.get(id) as GraphNode;
        const live = liveEdges(run.plan, id, ran, fired);
        // Not run: no input fired into it, or a test run stops before it (stop_after elsewhere).
        const stopped = run.workbench.stops(id);
        if (stopped || (!entryNodes.has(id) && live.length === 0)) {
          settled.add(id);
          run.progress.record({
            nodeId: id,
            nodeType: node.type,
            iteration,
            position: run.position++,
            status: 'skipped',
            attempt: run.attempt,
            ...(stopped ? { source: 'stopped' as const } : {}),
          });
          return;
        }
        const liveInputs = live.map((e) => e.source);
        const decision = run.workbench.applies(node)
          ? await run.workbench.decide(node, {
              outputs,
              liveInputs,
              iteration,
              loop,
              trigger: run.outgoingPayload,
            })
          : RUN;
        const result = await runWithRecovery(run, node, outputs, liveInputs, iteration, loop, decision);
        outputs[id] = result.output;
        if (containsStoredOutput(result.output)) run.nodesWithStoredOutputs.add(id);
        fired[id] = result.handle;
        lastOutput = result.output;
        ran.add(id);
        settled.add(id);
      }),
    );
  }
}

/** Runs a node and records its step; on failure applies on_failure, including park-and-retry. */
async function runWithRecovery(
  run: GraphRun,
  node: GraphNode,
  outputs: Record<string, unknown>,
  liveInputs: string[],
  iteration: number,
  loop: LoopScope,
  decision: StepDecision,
): Promise<NodeResult> {
  const { execution } = run;
  const stepPosition = run.position++;
  for (;;) {
    const step = { iteration, position: stepPosition, startedAt: Date.now() };
    const kind = run.kindOf(node);
    try {
      const result =
        decision.kind === 'run'
          ? await runNode(run, node, kind, outputs, liveInputs, iteration, loop)
          : settleWithoutRunning(decision);
      recordStep(run, node, kind, step, {
        status: 'completed',
        output: result.output,
        resolvedConfig: result.resolvedConfig,
        error: null,
        source: result.source,
      });
      if (kind.runsIn === 'activity' && !run.reportsBeforeSlowSteps) await run.report();
      return { output: result.output, handle: result.handle };
    } catch (error) {
      if (!(error instanceof StepFailure)) throw error;
      const onFailure = node.on_failure ?? DEFAULT_ON_FAILURE;
      // Through the SDK's logger sink to the worker's log (never on replay), with the run's ids.
      log.warn('step failed', {
        execution_id: execution.executionId,
        node_id: node.id,
        node_type: node.type,
        code: error.error.code,
        on_failure: onFailure,
      });
      recordStep(run, node, kind, step, {
        status: 'failed',
        output: null,
        resolvedConfig: error.resolvedConfig,
        error: error.error,
        source: error.source,
      });
      if (onFailure !== 'abort') {
        run.anyFailed = true;
        return { output: { error: error.error } };
      }
      const request = await failAndAwaitRetry(run, node, error.error);
      run.attempt = request?.attempt ?? run.attempt + 1;
      if (request?.nodeConfig) node = { ...node, config: request.nodeConfig };
      run.status = 'running';
    }
  }
}

/** Records one attempt of a node as a step (its resolved config redacted), timed from `step.startedAt`. */
function recordStep(
  run: GraphRun,
  node: GraphNode,
  kind: WorkflowNodeType,
  step: { iteration: number; position: number; startedAt: number },
  outcome: {
    status: 'completed' | 'failed';
    output: unknown;
    resolvedConfig: unknown;
    error: StepError | null;
    source?: StepSource | null;
  },
) {
  run.progress.record({
    nodeId: node.id,
    nodeType: node.type,
    iteration: step.iteration,
    position: step.position,
    status: outcome.status,
    attempt: run.attempt,
    output: outcome.output,
    resolvedConfig: redactResolvedConfig(kind, outcome.resolvedConfig),
    error: outcome.error,
    startedAt: new Date(step.startedAt).toISOString(),
    completedAt: new Date().toISOString(),
    durationMs: Date.now() - step.startedAt,
    ...(outcome.source ? { source: outcome.source } : {}),
  });
}

const TEST_RUNS_END_FAILED = 'test-runs-end-failed';

/**
 * Abort: the execution is failed now (and error.critical published), and stays resumable at this
 * node until the deadline (a test run ends instead: TestRunFailed). Answers the retry request that resumes it; past the deadline, throws.
 */
async function failAndAwaitRetry(
  run: GraphRun,
  node: GraphNode,
  error: StepError,
): Promise<RetrySignal | undefined> {
  // Forget any earlier retry request before the failure becomes visible: a retry sent as soon as
  // the record says `failed` must not be cleared while error.critical is being published.
  run.retryRequest = undefined;
  run.status = 'failed';
  // The step's record keeps the details; the execution's error and event stay as they were
  // (activity inputs of histories already recorded, checked by the replay test).
  const { details: _details, ...summary } = error;
  await run.report({ error: summary, completedAt: new Date().toISOString() });
  // Test runs and replays stay in the workbench: no error.critical for other workflows to act on.
  if (run.execution.event !== 'error.critical' && run.execution.mode !== 'test') {
    await publishCriticalError(run, node, summary);
  }
  // Patched: test runs parked for a retry before this change keep their history.
  if (run.execution.mode === 'test' && patched(TEST_RUNS_END_FAILED)) throw new TestRunFailed(error.message);
  const resumed = await condition(() => run.retryRequest !== undefined, EXECUTION_DEADLINE_MS);
  if (!resumed) {
    // Past the deadline the record says so, and a retry is refused without touching Temporal.
    await run.report({
      error: { message: 'The 7-day retry window of this execution has passed.', code: 'retry_expired' },
      completedAt: new Date().toISOString(),
    });
    throw ApplicationFailure.nonRetryable('Execution deadline passed', 'deadline');
  }
  return run.retryRequest as RetrySignal | undefined;
}

/** `error.critical`, for alert workflows: which execution failed, at which node, and why. */
async function publishCriticalError(run: GraphRun, node: GraphNode, error: StepError) {
  const { execution } = run;
  await sideEffects.publishEvent({
    organizationId: execution.organizationId,
    executionId: execution.executionId,
    event: 'error.critical',
    payload: {
      execution_id: execution.executionId,
      workflow_id: execution.workflowId,
      workflow_name: execution.workflowName,
      node_id: node.id,
      error,
    },
  });
}

/** A step the workbench settles without running its node: an output to use, or a failure to repeat. */
function settleWithoutRunning(
  decision: Exclude<StepDecision, { kind: 'run' }>,
): NodeResult & { resolvedConfig: unknown; source: StepSource } {
  if (decision.kind === 'fail') throw new StepFailure(decision.error, null, 'recorded');
  return { output: decision.output, handle: decision.handle, resolvedConfig: null, source: decision.source };
}

/** Runs one node: interpolate its config, then evaluate it here or hand it to its module or activity. */
async function runNode(
  run: GraphRun,
  node: GraphNode,
  kind: WorkflowNodeType,
  outputs: Record<string, unknown>,
  liveInputs: string[],
  iteration: number,
  loop: LoopScope,
): Promise<NodeResult & { resolvedConfig: unknown; source?: StepSource }> {
  const { execution } = run;
  const scope = run.scopeFor(outputs, loop);
  // The saved config was validated at save time; rendering only replaces string leaves, so its shape
  // holds and values may now be of any type. Some fields are never rendered (the code node's source:
  // data reaches user code as `input`, never pasted into it).
  const { templated, unrendered } = splitUnrendered(node.config, kind.unrenderedFields);
  let config = templated;
  try {
    if (run.readsStoredOutput(kind, templated, loop) || run.readsCredentials(kind, templated)) {
      // Large outputs live in PostgreSQL, secrets in credentials: an activity resolves, renders and
      // (if it can) runs the node, so neither enters the workflow.
      const remote = await sideEffects.runNodeOnStoredOutputs({
        organizationId: execution.organizationId,
        executionId: execution.executionId,
        nodeType: node.type,
        ...run.typeVersionArg(node),
        config: templated,
        scope,
        now: Date.now(),
        timezone: run.timezone,
        idempotencyKey: run.stepKey(node, iteration),
        ...run.inlineLimit(),
      });
      if (!remote.rendered) {
        return { output: remote.output, handle: remote.handle, resolvedConfig: remote.resolvedConfig };
      }
      config = remote.rendered;
    } else {
      config = renderValue(templated, scope, { now: new Date(), timezone: run.timezone }) as Record<
        string,
        unknown
      >;
    }
    Object.assign(config, unrendered);
    const result = await dispatch(run, node, kind, config, { outputs, liveInputs, iteration, loop });
    return { ...result, resolvedConfig: config };
  } catch (error) {
    if (isCancellation(error)) throw error;
    throw new StepFailure(stepErrorOf(error), config);
  }
}

/** A config without the fields its type never renders, and those fields. */
function splitUnrendered(config: Record<string, unknown>, fields: readonly string[] = []) {
  const templated = { ...config };
  const unrendered: Record<string, unknown> = {};
  for (const field of fields) {
    unrendered[field] = templated[field];
    delete templated[field];
  }
  return { templated, unrendered };
}

/** Where a node runs: its activity, its type's pure evaluator, or its type's workflow-side code. */
async function dispatch(
  run: GraphRun,
  node: GraphNode,
  kind: WorkflowNodeType,
  config: Record<string, unknown>,
  place: Omit<NodePlace, 'walkLoopBody'>,
): Promise<NodeResult> {
  if (kind.runsIn === 'activity' || !kind.evaluate) await run.reportBeforeSlowStep();
  if (kind.runsIn === 'activity') {
    return {
      output: await runSideEffect(run, node, kind, config, place.outputs, place.iteration, place.loop),
    };
  }
  if (kind.evaluate) return kind.evaluate(config);
  if (!kind.execute) {
    throw ApplicationFailure.nonRetryable(`Node type ${node.type} has no workflow code`, 'unknown_node_type');
  }
  const body = run.plan.loopBodies.get(node.id) ?? new Set<string>();
  const entries = new Set(loopEntries(run.plan, node.id));
  const walkLoopBody = (item: unknown, index: number, count: number) =>
    walk(run, {
      nodes: body,
      entries,
      outputs: { ...place.outputs },
      fired: { [node.id]: 'each' },
      iteration: index,
      loop: { item, index, count },
    });
  return kind.execute(config, nodeContext(run, node, config, { ...place, walkLoopBody }));
}
