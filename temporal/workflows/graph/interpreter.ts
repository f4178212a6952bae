import { ApplicationFailure, condition, isCancellation, log } from '@temporalio/workflow';
import {
  containsStoredOutput,
  ExpressionTooLargeError,
  type GraphNode,
  liveEdges,
  loopEntries,
  readyNodes,
  renderValue,
} from '@weft/graph/runtime';
import { getNodeEvaluator, redactResolvedConfig, runsInActivity } from '@weft/nodes/runtime';
import type { RetrySignal, StepError } from '../../shared';
import { sideEffects } from './activities';
import { runChildWorkflow } from './child';
import { runDelay } from './delay';
import { runLoop } from './loop';
import { runSideEffect } from './side-effect';
import { type GraphRun, type LoopScope, StepFailure } from './state';
import { runWaitForEvent } from './wait-for-event';

/** How long a failed execution stays resumable (DESIGN §12.5: every execution has a deadline). */
const EXECUTION_DEADLINE_MS = 7 * 24 * 3_600_000;

interface NodeResult {
  output: unknown;
  /** Which output handle fires; undefined = the node's only output. */
  handle?: string;
}

function stepErrorOf(error: unknown): StepError {
  if (error instanceof ExpressionTooLargeError) return { message: error.message, code: error.code };
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

/**
 * Walks a set of nodes until each one ran or was skipped (rules in @weft/graph plan). `fired` says
 * which handle each settled node fired (a loop's `each` when walking its body); returns the output
 * of the last node run.
 */
export async function walk(
  run: GraphRun,
  scopeNodes: Set<string>,
  outputs: Record<string, unknown>,
  fired: Record<string, string | undefined>,
  entryNodes: Set<string>,
  iteration: number,
  loop: LoopScope,
): Promise<unknown> {
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
        if (!entryNodes.has(id) && live.length === 0) {
          settled.add(id);
          run.progress.record({
            nodeId: id,
            nodeType: node.type,
            iteration,
            position: run.position++,
            status: 'skipped',
            attempt: run.attempt,
          });
          return;
        }
        const result = await runWithRecovery(
          run,
          node,
          outputs,
          live.map((e) => e.source),
          iteration,
          loop,
        );
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
): Promise<NodeResult> {
  const { execution, progress } = run;
  const stepPosition = run.position++;
  for (;;) {
    const startedAt = Date.now();
    try {
      const result = await runNode(run, node, outputs, liveInputs, iteration, loop);
      progress.record({
        nodeId: node.id,
        nodeType: node.type,
        iteration,
        position: stepPosition,
        status: 'completed',
        attempt: run.attempt,
        output: result.output,
        resolvedConfig: redactResolvedConfig(node.type, result.resolvedConfig),
        error: null,
        startedAt: new Date(startedAt).toISOString(),
        completedAt: new Date().toISOString(),
        durationMs: Date.now() - startedAt,
      });
      if (runsInActivity(node.type)) await run.report();
      return { output: result.output, handle: result.handle };
    } catch (error) {
      if (!(error instanceof StepFailure)) throw error;
      // Through the SDK's logger sink to the worker's log (never on replay), with the run's ids.
      log.warn('step failed', {
        execution_id: execution.executionId,
        node_id: node.id,
        node_type: node.type,
        code: error.error.code,
        on_failure: node.on_failure ?? 'abort',
      });
      progress.record({
        nodeId: node.id,
        nodeType: node.type,
        iteration,
        position: stepPosition,
        status: 'failed',
        attempt: run.attempt,
        output: null,
        resolvedConfig: redactResolvedConfig(node.type, error.resolvedConfig),
        error: error.error,
        startedAt: new Date(startedAt).toISOString(),
        completedAt: new Date().toISOString(),
        durationMs: Date.now() - startedAt,
      });
      if (node.on_failure !== 'abort') {
        run.anyFailed = true;
        return { output: { error: error.error } };
      }
      // Abort: the execution is failed now, and stays resumable here until the deadline. Forget any
      // earlier retry request before the failure becomes visible: a retry sent as soon as the record
      // says `failed` must not be cleared while error.critical is being published.
      run.retryRequest = undefined;
      run.status = 'failed';
      // The step's record keeps the details; the execution's error and event stay as they were
      // (activity inputs of histories already recorded, checked by the replay test).
      const { details: _details, ...summary } = error.error;
      await run.report({ error: summary, completedAt: new Date().toISOString() });
      if (execution.event !== 'error.critical') {
        await sideEffects.publishEvent({
          organizationId: execution.organizationId,
          executionId: execution.executionId,
          event: 'error.critical',
          payload: {
            execution_id: execution.executionId,
            workflow_id: execution.workflowId,
            workflow_name: execution.workflowName,
            node_id: node.id,
            error: summary,
          },
        });
      }
      const resumed = await condition(() => run.retryRequest !== undefined, EXECUTION_DEADLINE_MS);
      if (!resumed) {
        // Past the deadline the record says so, and a retry is refused without touching Temporal.
        await run.report({
          error: { message: 'The 7-day retry window of this execution has passed.', code: 'retry_expired' },
          completedAt: new Date().toISOString(),
        });
        throw ApplicationFailure.nonRetryable('Execution deadline passed', 'deadline');
      }
      const request = run.retryRequest as RetrySignal | undefined;
      run.attempt = request?.attempt ?? run.attempt + 1;
      if (request?.nodeConfig) node = { ...node, config: request.nodeConfig };
      run.status = 'running';
    }
  }
}

/** Runs one node: interpolate its config, then evaluate it here or hand it to its module or activity. */
async function runNode(
  run: GraphRun,
  node: GraphNode,
  outputs: Record<string, unknown>,
  liveInputs: string[],
  iteration: number,
  loop: LoopScope,
): Promise<NodeResult & { resolvedConfig: unknown }> {
  const { execution } = run;
  const scope = run.scopeFor(outputs, loop);
  // The saved config was validated at save time; rendering only replaces string leaves, so its shape
  // holds and values may now be of any type. The code node's source is never rendered: data reaches
  // user code as `input`, never pasted into it.
  const { code: source, ...templated } = node.config;
  let config = templated;
  try {
    if (run.readsStoredOutput(node, templated, loop) || run.readsCredentials(node, templated)) {
      // Large outputs live in PostgreSQL, secrets in credentials: an activity resolves, renders and
      // (if it can) runs the node, so neither enters the workflow.
      const remote = await sideEffects.runNodeOnStoredOutputs({
        organizationId: execution.organizationId,
        executionId: execution.executionId,
        nodeType: node.type,
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
    if (node.type === 'action.code') config.code = source;
    const result = await dispatch(run, node, config, outputs, liveInputs, iteration, loop);
    return { ...result, resolvedConfig: config };
  } catch (error) {
    if (isCancellation(error)) throw error;
    throw new StepFailure(stepErrorOf(error), config);
  }
}

/** Where a node of each type runs: a pure evaluator, a control-flow module, or its activity. */
async function dispatch(
  run: GraphRun,
  node: GraphNode,
  config: Record<string, unknown>,
  outputs: Record<string, unknown>,
  liveInputs: string[],
  iteration: number,
  loop: LoopScope,
): Promise<NodeResult> {
  const evaluate = getNodeEvaluator(node.type);
  if (evaluate) return evaluate(config);
  switch (node.type) {
    case 'action.merge':
      return { output: Object.fromEntries(liveInputs.map((id) => [id, outputs[id] ?? null])) };
    case 'action.delay':
      return runDelay(run, node, iteration, config);
    case 'action.wait_for_event':
      return runWaitForEvent(run, node, iteration, config);
    case 'action.loop': {
      const body = run.plan.loopBodies.get(node.id) ?? new Set<string>();
      const entries = new Set(loopEntries(run.plan, node.id));
      return runLoop(config, (item, index, count) =>
        walk(run, body, { ...outputs }, { [node.id]: 'each' }, entries, index, { item, index, count }),
      );
    }
    case 'action.workflow.execute':
      return runChildWorkflow(run, config);
    default:
      if (runsInActivity(node.type)) {
        return { output: await runSideEffect(run, node, config, outputs, iteration, loop) };
      }
      throw ApplicationFailure.nonRetryable(`Unknown node type ${node.type}`, 'unknown_node_type');
  }
}
