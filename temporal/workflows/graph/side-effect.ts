import { ApplicationFailure, isCancellation, patched } from '@temporalio/workflow';
import type { GraphNode } from '@weft/graph/runtime';
import { activityTraitsOf, type WorkflowNodeType } from '@weft/nodes/runtime';
import type { Activities } from '../../activities';
import {
  blocking,
  legacyLocalSideEffect,
  localSideEffect,
  SIDE_EFFECT_RETRY,
  sideEffects,
} from './activities';
import type { GraphRun, LoopScope } from './state';

type RunNodeArgs = Parameters<Activities['runNode']>[0];
type LocalRunArgs = Parameters<Activities['runNodeLocally']>[0];

/** The generic `runNode` activity; histories recorded before it called one activity per node type. */
const GENERIC_NODE_ACTIVITY = 'generic-node-activity';
/**
 * A short call's first attempt as a local activity when the worker has a place for it
 * (ActivityNodeTraits.localUpToMs); earlier histories scheduled activities only. A type that
 * became local later names its own marker (localSincePatch).
 */
const LOCAL_FIRST_CALLS = 'local-first-calls';
/**
 * Stop 28's interpreter ran short calls wholly as local activities, retries included. Only its
 * histories hold this marker: a new run takes the marker above first and never asks for this one.
 */
const LOCAL_SHORT_CALLS = 'local-short-calls';

/** A node type that runs in an activity: its runner is looked up in the registry by the worker. */
export async function runSideEffect(
  run: GraphRun,
  node: GraphNode,
  kind: WorkflowNodeType,
  config: Record<string, unknown>,
  outputs: Record<string, unknown>,
  iteration: number,
  loop: LoopScope,
): Promise<unknown> {
  const { execution } = run;
  const stepKey = run.stepKey(node, iteration);
  const traits = activityTraitsOf(kind);
  const input =
    traits.reads === 'upstream'
      ? { trigger: execution.payload, nodes: outputs, loop: loop ?? null }
      : traits.reads === 'trigger'
        ? { trigger: run.outgoingPayload }
        : undefined;
  if (patched(GENERIC_NODE_ACTIVITY)) {
    const args = {
      organizationId: execution.organizationId,
      executionId: execution.executionId,
      nodeId: node.id,
      nodeType: node.type,
      // Absent for version 1, so activity inputs of nodes saved before versions stay as they were.
      ...(node.type_version !== undefined && node.type_version !== 1
        ? { typeVersion: node.type_version }
        : {}),
      config,
      stepKey,
      ...(input ? { input } : {}),
      ...run.inlineLimit(),
    };
    const regular = () => (traits.activity === 'blocking' ? blocking : sideEffects).runNode(args);
    const localUpToMs = traits.localUpToMs?.(config);
    if (localUpToMs !== undefined) {
      // The execution's attempt keys the call's recorded answer (run-node.ts): a retry calls again.
      const local = { ...args, executionAttempt: run.attempt };
      if (patched(traits.localSincePatch ?? LOCAL_FIRST_CALLS))
        return runLocally(localUpToMs, local, regular);
      if (patched(LOCAL_SHORT_CALLS)) return runWhollyLocally(localUpToMs, local, regular);
    }
    return regular();
  }
  return runBeforeGenericActivity(run, node, config, stepKey, input);
}

/**
 * `runNode`'s first attempt as a local activity. A failure that ended the step comes back as a
 * value (its details survive that way); it is thrown here as a regular activity's failure would
 * reach the interpreter (stepErrorOf reads the cause). When the worker had no place for the call,
 * or the attempt failed in a way worth retrying, the call is a regular activity from then on.
 */
async function runLocally(
  localUpToMs: number,
  args: LocalRunArgs,
  regular: () => Promise<unknown>,
): Promise<unknown> {
  let result: Awaited<ReturnType<Activities['runNodeLocally']>>;
  try {
    result = await localSideEffect(localUpToMs).runNodeLocally(args);
  } catch (error) {
    // Only a failure worth another attempt is thrown (a final one comes back as a value), as the
    // activity's own failure, not always wrapped in an ActivityFailure.
    if (isCancellation(error)) throw error;
    return regular();
  }
  if ('deferred' in result) return regular();
  return outputOrFailure(result);
}

/** A local call's answer: its output, or the failure that ended the step thrown as an activity's would be. */
function outputOrFailure(
  result: { output: unknown } | { failed: { message: string; type: string; details?: unknown } },
) {
  if ('output' in result) return result.output;
  const { message, type, details } = result.failed;
  throw new Error(message, {
    cause: ApplicationFailure.create({
      message,
      type,
      nonRetryable: true,
      details: details === undefined ? [] : [details],
    }),
  });
}

/**
 * The calls of stop 28's histories: one local activity with the side effects' retries, a failure
 * that ended the step answered as a value, a failure after the last attempt thrown as it came.
 */
async function runWhollyLocally(
  localUpToMs: number,
  args: LocalRunArgs,
  regular: () => Promise<unknown>,
): Promise<unknown> {
  const result = await legacyLocalSideEffect(localUpToMs).runNodeLocally({
    ...args,
    maximumAttempts: SIDE_EFFECT_RETRY.maximumAttempts,
  });
  // Answered only by today's worker, when it has no place for the call.
  if ('deferred' in result) return regular();
  return outputOrFailure(result);
}

/** The per-type activity calls of histories recorded before `runNode` (same commands, same order). */
function runBeforeGenericActivity(
  run: GraphRun,
  node: GraphNode,
  config: Record<string, unknown>,
  stepKey: string,
  input: { trigger: unknown; nodes?: unknown; loop?: unknown } | undefined,
): Promise<unknown> {
  const { execution } = run;
  switch (node.type) {
    case 'action.http_request':
      return sideEffects.httpRequest({ config, idempotencyKey: stepKey, ...run.inlineLimit() });
    case 'action.code':
      return blocking.runCode({ config, input, ...run.inlineLimit() });
    case 'action.event.publish':
      return sideEffects.publishEvent({
        organizationId: execution.organizationId,
        executionId: execution.executionId,
        event: String(config.event),
        payload:
          (config.payload as Record<string, unknown> | undefined) ??
          (execution.payload as Record<string, unknown>),
      });
    default:
      return sideEffects.runModuleNode({
        organizationId: execution.organizationId,
        nodeType: node.type,
        config,
        idempotencyKey: stepKey,
      });
  }
}
