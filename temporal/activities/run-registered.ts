import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { AppError, resolveStoredOutputs, storeIfLarge } from '@weft/domain';
import { loadNodeRunner, type NodeRunContext, NodeRunError } from '@weft/nodes/runners';
import { activityTraitsOf, workflowNodeOf } from '@weft/nodes/runtime';
import { ZodError } from 'zod';
import type { ActivityDeps } from './deps';
import { createNodeRunContext } from './node-run-context';

/** 256 KiB: far below Temporal's 2 MB payload limit, and a few hundred fit in a 50 MB history. */
export const DEFAULT_OUTPUT_INLINE_LIMIT_BYTES = 256 * 1024;

/** What the interpreter sends to run one node in an activity. */
export interface RunNodeArgs {
  organizationId: string;
  executionId: string;
  nodeId: string;
  nodeType: string;
  /** The node's type version, when not 1. */
  typeVersion?: number;
  /** Rendered, except for the code node's source, which is never rendered. */
  config: Record<string, unknown>;
  stepKey: string;
  /** What the type's `reads` trait asks for (its workflow.ts). */
  input?: NodeRunContext['input'];
  /** 0 once the history is past its budget: every output then goes to PostgreSQL. */
  inlineLimitBytes?: number;
}

/**
 * Heartbeats every 2 s while `work` runs, so Temporal notices a dead worker within its heartbeat
 * timeout. A local activity has no heartbeat (Temporal refuses it): its worker holds the workflow
 * task, whose loss Temporal notices instead.
 */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  if (context.info.isLocal) return work();
  const timer = setInterval(() => context.heartbeat(), 2000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** A runner's failure in Temporal's terms: its code as the failure type, final unless it says otherwise. */
export function toActivityFailure(error: unknown): unknown {
  if (error instanceof NodeRunError) {
    return ApplicationFailure.create({
      message: error.message,
      type: error.code,
      nonRetryable: !error.retryable,
      details: error.details === undefined ? [] : [error.details],
      ...(error.retryable && error.retryAfterMs !== undefined ? { nextRetryDelay: error.retryAfterMs } : {}),
    });
  }
  // A rendered config that no longer fits its schema fails the same way on every attempt.
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return ApplicationFailure.nonRetryable(
      `Invalid config after interpolation: ${where}${issue?.message}`,
      'invalid_config',
    );
  }
  if (error instanceof AppError) return ApplicationFailure.nonRetryable(error.message, error.code);
  return error;
}

/** The output size above which an output goes to PostgreSQL: the history's override, the worker's, the default. */
export function inlineLimit(deps: ActivityDeps, override?: number): number {
  return override ?? deps.outputInlineLimitBytes ?? DEFAULT_OUTPUT_INLINE_LIMIT_BYTES;
}

/** What runRegistered needs beyond a RunNodeArgs. */
export type RegisteredRunArgs = RunNodeArgs & {
  /** Headers of the config rendered from `{{credentials.…}}`. */
  sensitiveHeaders?: readonly string[];
};

/** Runs the type's runner with its dependencies; the output is kept small (large ones go to PostgreSQL). */
export async function runRegistered(deps: ActivityDeps, args: RegisteredRunArgs): Promise<unknown> {
  const runner = await loadNodeRunner(args.nodeType, args.typeVersion ?? 1);
  if (!runner) {
    throw ApplicationFailure.nonRetryable(`Unknown node type ${args.nodeType}`, 'unknown_node_type');
  }
  // Legacy histories send no organization (''): the stored outputs then find it from the execution.
  const ref = { organizationId: args.organizationId || undefined, executionId: args.executionId };
  // Upstream data may hold references to stored outputs: the runner sees the real values.
  const input = args.input
    ? ((await resolveStoredOutputs(deps.db, ref, args.input)) as NodeRunContext['input'])
    : {};
  const ctx = createNodeRunContext(deps, { ...args, input });
  const traits = activityTraitsOf(workflowNodeOf(args.nodeType, args.typeVersion ?? 1));
  const run = () => runner.run(args.config, ctx);
  // Activity logs go through the SDK's logger (the worker's), which adds the activity's ids;
  // these add Weft's. Never the config or output: they hold the user's data and secrets.
  const ids = { execution_id: args.executionId, node_id: args.nodeId, node_type: args.nodeType };
  const started = performance.now();
  let output: unknown;
  try {
    output = await (traits.activity === 'blocking' ? run() : withHeartbeat(run));
  } catch (error) {
    const failure = toActivityFailure(error);
    Context.current().log.warn('node run failed', {
      ...ids,
      code: failure instanceof ApplicationFailure ? failure.type : 'error',
      duration_ms: Math.round(performance.now() - started),
    });
    throw failure;
  }
  Context.current().log.debug('node ran', { ...ids, duration_ms: Math.round(performance.now() - started) });
  return storeIfLarge(
    deps.db,
    { executionId: args.executionId },
    output,
    inlineLimit(deps, args.inlineLimitBytes),
  );
}
