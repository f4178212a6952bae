import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  AppError,
  CredentialUnusableError,
  credentialNamesIn,
  credentialScopes,
  resolveStoredOutputs,
  storeIfLarge,
} from '@weft/domain';
import { type ExpressionScope, ExpressionTooLargeError, renderValue } from '@weft/graph';
import { loadNodeRunner, type NodeRunContext, NodeRunError } from '@weft/nodes/runners';
import { activityTraitsOf, workflowNodeOf } from '@weft/nodes/runtime';
import { ZodError } from 'zod';
import type { ActivityDeps } from './deps';
import { createLegacyNodeActivities } from './legacy-node-activities';
import { createNodeRunContext } from './node-run-context';

/** 256 KiB: far below Temporal's 2 MB payload limit, and a few hundred fit in a 50 MB history. */
export const DEFAULT_OUTPUT_INLINE_LIMIT_BYTES = 256 * 1024;

/** A config rendered for a node that runs in the workflow (delay, wait, loop, child) must fit a payload. */
const RENDERED_CONFIG_LIMIT_BYTES = 1024 * 1024;

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
  /** What the type's `reads` trait asks for (runs-in.ts). */
  input?: NodeRunContext['input'];
  /** 0 once the history is past its budget: every output then goes to PostgreSQL. */
  inlineLimitBytes?: number;
}

/**
 * The headers of a rendered config whose value came from `{{credentials.…}}`: they render differently
 * with the credentials opened than with them shown as `[credential:<name>]`.
 */
function credentialHeaderNames(open: Record<string, unknown>, shown: Record<string, unknown>): string[] {
  const openHeaders = open.headers;
  const shownHeaders = shown.headers;
  if (typeof openHeaders !== 'object' || openHeaders === null) return [];
  if (typeof shownHeaders !== 'object' || shownHeaders === null) return [];
  return Object.entries(openHeaders)
    .filter(([name, value]) => (shownHeaders as Record<string, unknown>)[name] !== value)
    .map(([name]) => name);
}

/** Heartbeats every 2 s while `work` runs, so Temporal notices a dead worker within its heartbeat timeout. */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), 2000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** A runner's failure in Temporal's terms: its code as the failure type, final unless it says otherwise. */
function toActivityFailure(error: unknown): unknown {
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

/** What runRegistered needs beyond a RunNodeArgs. */
type RegisteredRunArgs = RunNodeArgs & {
  /** Headers of the config rendered from `{{credentials.…}}`. */
  sensitiveHeaders?: readonly string[];
};

/** Activities that run node types from the registry: one generic entry point, plus the stored-output path. */
export function createNodeActivities(deps: ActivityDeps) {
  const inlineLimit = (override?: number) =>
    override ?? deps.outputInlineLimitBytes ?? DEFAULT_OUTPUT_INLINE_LIMIT_BYTES;

  /** Runs the type's runner with its dependencies; the output is kept small (large ones go to PostgreSQL). */
  async function runRegistered(args: RegisteredRunArgs): Promise<unknown> {
    const runner = await loadNodeRunner(args.nodeType, args.typeVersion ?? 1);
    if (!runner) {
      throw ApplicationFailure.nonRetryable(`Unknown node type ${args.nodeType}`, 'unknown_node_type');
    }
    const ref = { organizationId: args.organizationId, executionId: args.executionId };
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
      inlineLimit(args.inlineLimitBytes),
    );
  }

  return {
    /** Any node type that runs in an activity: the runner comes from the registry. */
    runNode: (args: RunNodeArgs) => runRegistered(args),

    /**
     * A node that reads a stored (large) output: the references are resolved, the config rendered
     * and, where the node can run here, the node run here, so the large value never enters the
     * workflow. Nodes that must run in the workflow (delay, waits, loop, child workflows) get their
     * rendered config back, which must then be small enough for Temporal.
     */
    async runNodeOnStoredOutputs(args: {
      organizationId: string;
      executionId: string;
      nodeId?: string;
      nodeType: string;
      typeVersion?: number;
      config: Record<string, unknown>;
      scope: ExpressionScope;
      now: number;
      timezone: string;
      idempotencyKey: string;
      inlineLimitBytes?: number;
    }): Promise<{
      output?: unknown;
      handle?: string;
      resolvedConfig: unknown;
      rendered?: Record<string, unknown>;
    }> {
      const ref = { organizationId: args.organizationId, executionId: args.executionId };
      const scope = (await resolveStoredOutputs(deps.db, ref, args.scope)) as ExpressionScope;
      const options = { now: new Date(args.now), timezone: args.timezone };
      // `{{credentials.…}}` render here only: the request gets the secrets, the trace their names.
      const credentials = await credentialScopes(
        deps.db,
        deps.secrets,
        args.organizationId,
        credentialNamesIn(args.config),
      ).catch((error: unknown) => {
        if (error instanceof CredentialUnusableError)
          throw ApplicationFailure.nonRetryable(error.message, error.code);
        throw error;
      });
      const render = (shown: Record<string, Record<string, string>>) => {
        try {
          return renderValue(args.config, { ...scope, credentials: shown }, options) as Record<
            string,
            unknown
          >;
        } catch (error) {
          // Rendering the same data fails the same way on every attempt.
          if (error instanceof ExpressionTooLargeError)
            throw ApplicationFailure.nonRetryable(error.message, error.code);
          throw error;
        }
      };
      const config = render(credentials.open);
      const traced = Object.keys(credentials.shown).length > 0 ? render(credentials.shown) : config;
      const small = (value: unknown) => storeIfLarge(deps.db, ref, value, inlineLimit(args.inlineLimitBytes));
      const kind = workflowNodeOf(args.nodeType, args.typeVersion ?? 1);
      const evaluate = kind.runsIn === 'workflow' ? kind.evaluate : undefined;
      if (evaluate) {
        let evaluated: ReturnType<typeof evaluate>;
        try {
          evaluated = evaluate(config);
        } catch (error) {
          // Pure nodes fail the same way every time.
          throw ApplicationFailure.nonRetryable(
            error instanceof Error ? error.message : String(error),
            'node_failed',
          );
        }
        return { ...evaluated, output: await small(evaluated.output), resolvedConfig: await small(traced) };
      }
      const traits = activityTraitsOf(kind);
      if (kind.runsIn === 'activity' && traits.reads !== 'upstream') {
        const output = await runRegistered({
          ...ref,
          nodeId: args.nodeId ?? '',
          nodeType: args.nodeType,
          typeVersion: args.typeVersion,
          config,
          stepKey: args.idempotencyKey,
          input: traits.reads === 'trigger' ? { trigger: scope.trigger } : undefined,
          inlineLimitBytes: args.inlineLimitBytes,
          sensitiveHeaders: credentialHeaderNames(config, traced),
        });
        return { output, resolvedConfig: await small(traced) };
      }
      if (Buffer.byteLength(JSON.stringify(config)) > RENDERED_CONFIG_LIMIT_BYTES) {
        throw ApplicationFailure.nonRetryable(
          `${args.nodeType} cannot take a value this large from a stored output; pass a smaller part of it`,
          'stored_output_too_large',
        );
      }
      return { rendered: config, resolvedConfig: config };
    },

    ...createLegacyNodeActivities(runRegistered),
  };
}
