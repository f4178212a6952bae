import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  AppError,
  CredentialUnusableError,
  chatWindow,
  claimOutboxMessage,
  completeOutboxMessage,
  credentialNamesIn,
  credentialScopes,
  findChatTemplate,
  openCredential,
  openModuleConfig,
  publishEvent,
  releaseOutboxMessage,
  resolveStoredOutputs,
  sendChatMessage,
  sendMail,
  storeIfLarge,
  syncChatTemplates,
} from '@weft/domain';
import { type ExpressionScope, ExpressionTooLargeError, renderValue } from '@weft/graph';
import { getNodeRunner, type NodeHttpClient, type NodeRunContext, NodeRunError } from '@weft/nodes/runners';
import { ACTIVITY_NODE_TRAITS, getNodeEvaluator } from '@weft/nodes/runtime';
import { isSecretName, rememberSecrets } from '@weft/telemetry';
import { ZodError } from 'zod';
import type { ActivityDeps } from './deps';

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

/** The client, marking `names` as secret on every request (dropped on a cross-origin redirect). */
function withSensitiveHeaders(http: NodeHttpClient, names: readonly string[]): NodeHttpClient {
  if (names.length === 0) return http;
  return {
    request: (req) => http.request({ ...req, sensitiveHeaders: [...(req.sensitiveHeaders ?? []), ...names] }),
  };
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

/** An event raised by a running execution, inside its organization (its executions name it as parent). */
export async function publishFromExecution(
  deps: ActivityDeps,
  args: { organizationId: string; executionId: string; event: string; payload: Record<string, unknown> },
) {
  const result = await publishEvent({
    ctx: { db: deps.db, organizationId: args.organizationId, actor: {} },
    input: { event: args.event, payload: args.payload },
    engine: deps.engine,
    trigger: 'event',
    parentExecutionId: args.executionId,
  });
  return { workflows_triggered: result.workflows_triggered, execution_ids: result.execution_ids };
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

/** Activities that run node types from the registry: one generic entry point, plus the names older histories call. */
export function createNodeActivities(deps: ActivityDeps) {
  const inlineLimit = (override?: number) =>
    override ?? deps.outputInlineLimitBytes ?? DEFAULT_OUTPUT_INLINE_LIMIT_BYTES;

  const chatProviders = () => ({
    http: deps.http,
    cloudBaseUrl: deps.chatCloudBaseUrl ?? 'https://graph.facebook.com',
    gatewayBaseUrl: deps.chatGatewayBaseUrl ?? 'https://api.twilio.com',
    gatewayContentBaseUrl: deps.chatGatewayContentBaseUrl ?? 'https://content.twilio.com',
  });

  /** Runs the type's runner with its dependencies; the output is kept small (large ones go to PostgreSQL). */
  async function runRegistered(
    args: Omit<RunNodeArgs, 'organizationId'> & {
      organizationId?: string;
      /** Headers of the config rendered from `{{credentials.…}}`. */
      sensitiveHeaders?: readonly string[];
    },
  ): Promise<unknown> {
    const runner = getNodeRunner(args.nodeType);
    if (!runner) {
      throw ApplicationFailure.nonRetryable(`Unknown node type ${args.nodeType}`, 'unknown_node_type');
    }
    const ref = { organizationId: args.organizationId, executionId: args.executionId };
    // Upstream data may hold references to stored outputs: the runner sees the real values.
    const input = args.input
      ? ((await resolveStoredOutputs(deps.db, ref, args.input)) as NodeRunContext['input'])
      : {};
    const outboxRef = { organizationId: args.organizationId ?? '', stepKey: args.stepKey };
    const ctx: NodeRunContext = {
      organizationId: args.organizationId ?? '',
      executionId: args.executionId,
      nodeId: args.nodeId,
      stepKey: args.stepKey,
      input,
      http: withSensitiveHeaders(deps.http, args.sensitiveHeaders ?? []),
      outbox: {
        claim: (channel) => claimOutboxMessage(deps.db, { ...outboxRef, channel }),
        complete: (result) => completeOutboxMessage(deps.db, outboxRef, result),
        release: (error) => releaseOutboxMessage(deps.db, outboxRef, error),
      },
      sendMail: (module, message) => sendMail(module, message, deps.ssrfAllowlist ?? []),
      chatTemplate: async (name, language) => {
        const known = await findChatTemplate(deps.db, ctx.organizationId, name, language);
        if (known) return known;
        // Unknown here: it may have been created since the last sync. Sync once before refusing.
        await syncChatTemplates(deps.db, { ...chatProviders(), secrets: deps.secrets }, ctx.organizationId);
        return findChatTemplate(deps.db, ctx.organizationId, name, language);
      },
      chatWindow: (phoneHash) => chatWindow(deps.db, { organizationId: ctx.organizationId, phoneHash }),
      sendChat: (module, message) => sendChatMessage(chatProviders(), module, message),
      openModule: async (module) => {
        const config = await openModuleConfig(deps.db, deps.secrets, ctx.organizationId, module);
        // An upstream that echoes a module's secret back cannot put it in a log line (see redact.ts).
        if (config) rememberSecrets(Object.entries(config).flatMap(([k, v]) => (isSecretName(k) ? [v] : [])));
        return config;
      },
      openCredential: async (credentialId, allowedTypes) => {
        try {
          const credential = await openCredential(deps.db, deps.secrets, {
            organizationId: ctx.organizationId,
            credentialId,
            allowedTypes,
          });
          // Every field but a header's name and a username is secret: an echo of one in an
          // upstream's answer or error is redacted from every log line of this process.
          rememberSecrets(
            Object.entries(credential.fields).flatMap(([k, v]) =>
              k === 'name' || k === 'username' ? [] : [v],
            ),
          );
          return { type: credential.type, fields: credential.fields };
        } catch (error) {
          if (error instanceof CredentialUnusableError)
            throw new NodeRunError(error.code, error.message, false);
          throw error;
        }
      },
      publishEvent: (event, payload) =>
        publishFromExecution(deps, {
          organizationId: ctx.organizationId,
          executionId: args.executionId,
          event,
          payload,
        }),
    };
    const traits = ACTIVITY_NODE_TRAITS[args.nodeType];
    const run = () => runner.run(args.config, ctx);
    // Activity logs go through the SDK's logger (the worker's), which adds the activity's ids;
    // these add Weft's. Never the config or output: they hold the user's data and secrets.
    const ids = { execution_id: args.executionId, node_id: args.nodeId, node_type: args.nodeType };
    const started = performance.now();
    let output: unknown;
    try {
      output = await (traits?.activity === 'blocking' ? run() : withHeartbeat(run));
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

  /** The execution an activity works for, from its Temporal workflow id (`exec-<execution_id>`). */
  function current(): { executionId: string } {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
    return { executionId: workflowId.startsWith('exec-') ? workflowId.slice('exec-'.length) : '' };
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
      const evaluate = getNodeEvaluator(args.nodeType);
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
      const traits = ACTIVITY_NODE_TRAITS[args.nodeType];
      if (traits && traits.reads !== 'upstream') {
        const output = await runRegistered({
          ...ref,
          nodeId: args.nodeId ?? '',
          nodeType: args.nodeType,
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

    // The names below are what histories recorded before the generic `runNode` call (the workflow
    // takes them on replay, behind `patched('generic-node-activity')`). Remove them once no such
    // execution can still be running (7 days after the release that added runNode).

    /** @deprecated histories before runNode: action.http_request. */
    httpRequest: (args: {
      config: Record<string, unknown>;
      idempotencyKey: string;
      inlineLimitBytes?: number;
    }) =>
      runRegistered({
        ...current(),
        nodeId: '',
        nodeType: 'action.http_request',
        config: args.config,
        stepKey: args.idempotencyKey,
        inlineLimitBytes: args.inlineLimitBytes,
      }),

    /** @deprecated histories before runNode: action.code. */
    runCode: (args: { config: Record<string, unknown>; input: unknown; inlineLimitBytes?: number }) =>
      runRegistered({
        ...current(),
        nodeId: '',
        nodeType: 'action.code',
        config: args.config,
        stepKey: '',
        input: args.input as NodeRunContext['input'],
        inlineLimitBytes: args.inlineLimitBytes,
      }),

    /** @deprecated histories before runNode: e-mail, chat and AI nodes. */
    runModuleNode: (args: {
      organizationId: string;
      nodeType: string;
      config: unknown;
      idempotencyKey: string;
    }) =>
      runRegistered({
        organizationId: args.organizationId,
        ...current(),
        nodeId: '',
        nodeType: args.nodeType,
        config: args.config as Record<string, unknown>,
        stepKey: args.idempotencyKey,
      }),
  };
}
