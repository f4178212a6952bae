import { ApplicationFailure } from '@temporalio/common';
import {
  CredentialUnusableError,
  credentialNamesIn,
  credentialScopes,
  resolveStoredOutputs,
  storeIfLarge,
} from '@weft/domain';
import { type ExpressionScope, ExpressionTooLargeError, renderValue } from '@weft/graph';
import { activityTraitsOf, workflowNodeOf } from '@weft/nodes/runtime';
import type { ActivityDeps } from './deps';
import { inlineLimit, runRegistered } from './run-registered';

/** A config rendered for a node that runs in the workflow (delay, wait, loop, child) must fit a payload. */
const RENDERED_CONFIG_LIMIT_BYTES = 1024 * 1024;

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

/**
 * A node that reads a stored (large) output: the references are resolved, the config rendered
 * and, where the node can run here, the node run here, so the large value never enters the
 * workflow. Nodes that must run in the workflow (delay, waits, loop, child workflows) get their
 * rendered config back, which must then be small enough for Temporal.
 */
export async function runNodeOnStoredOutputs(
  deps: ActivityDeps,
  args: {
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
  },
): Promise<{
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
      return renderValue(args.config, { ...scope, credentials: shown }, options) as Record<string, unknown>;
    } catch (error) {
      // Rendering the same data fails the same way on every attempt.
      if (error instanceof ExpressionTooLargeError)
        throw ApplicationFailure.nonRetryable(error.message, error.code);
      throw error;
    }
  };
  const config = render(credentials.open);
  const traced = Object.keys(credentials.shown).length > 0 ? render(credentials.shown) : config;
  const small = (value: unknown) =>
    storeIfLarge(deps.db, ref, value, inlineLimit(deps, args.inlineLimitBytes));
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
    const output = await runRegistered(deps, {
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
}
