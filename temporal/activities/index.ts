import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Database } from '@weft/db';
import { type ExpressionScope, renderValue } from '@weft/graph';
import {
  CodeConfig,
  HttpRequestConfig,
  type RenderedConditionConfig,
  type RenderedSwitchConfig,
  type RenderedTransformConfig,
  runCondition,
  runSwitch,
  runTransform,
} from '@weft/nodes';
import { CodeRunError, runSandboxedCode } from '@weft/nodes/code/run';
import {
  type createOutboundHttpClient,
  type ExecutionEngine,
  type ExecutionProgress,
  loadExecution,
  OutboundHttpError,
  publishEvent,
  resolveStoredOutputs,
  type SecretBox,
  saveExecutionProgress,
  storeIfLarge,
} from '@weft/services';
import { createCartActivities } from './carts';
import { createDeliveryActivities } from './deliver-webhook';
import { createPollingActivities } from './polling';
import { prepareChildExecution } from './prepare-child-execution';
import { createScheduleActivities } from './schedules';

export interface ActivityDeps {
  db: Database;
  engine: ExecutionEngine & { startDirect(organizationId: string, executionIds: string[]): Promise<void> };
  http: ReturnType<typeof createOutboundHttpClient>;
  /** Node outputs whose JSON is larger are stored in PostgreSQL and passed by reference. */
  outputInlineLimitBytes?: number;
  /** APP_KEY-derived encryption of stored secrets (webhook signing secrets). */
  secrets: SecretBox;
}

/** 256 KiB: far below Temporal's 2 MB payload limit, and a few hundred fit in a 50 MB history. */
export const DEFAULT_OUTPUT_INLINE_LIMIT_BYTES = 256 * 1024;

/** A config rendered for a node that runs in the workflow (delay, wait, loop, child) must fit a payload. */
const RENDERED_CONFIG_LIMIT_BYTES = 1024 * 1024;

/** The execution an activity works for, from its Temporal workflow id (`exec-<execution_id>`). */
function currentExecutionId(): string | null {
  const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
  return workflowId.startsWith('exec-') ? workflowId.slice('exec-'.length) : null;
}

const textDecoder = new TextDecoder();

/** Heartbeats every 2 s while `work` runs, so Temporal notices a dead worker within its heartbeat timeout. */
async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), 2000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Activity factory: dependencies come in, activities come out (samples-typescript style). */
export function createActivities(deps: ActivityDeps) {
  const inlineLimit = () => deps.outputInlineLimitBytes ?? DEFAULT_OUTPUT_INLINE_LIMIT_BYTES;

  /** Outputs above the inline limit go to PostgreSQL; the workflow carries a reference instead. */
  async function keepSmall(value: unknown, limitOverride?: number): Promise<unknown> {
    const executionId = currentExecutionId();
    if (!executionId) return value;
    return storeIfLarge(deps.db, { executionId }, value, limitOverride ?? inlineLimit());
  }

  /** action.http_request through the SSRF-guarded client. The step key doubles as Idempotency-Key. */
  async function performHttpRequest(rawConfig: Record<string, unknown>, idempotencyKey: string) {
    const config = HttpRequestConfig.parse(rawConfig);
    const url = new URL(config.url);
    for (const [name, value] of Object.entries(config.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { ...(config.headers ?? {}) };
    let body: string | undefined;
    if (config.body !== undefined && config.method !== 'GET' && config.method !== 'HEAD') {
      body = typeof config.body === 'string' ? config.body : JSON.stringify(config.body);
      if (
        typeof config.body !== 'string' &&
        !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
      ) {
        headers['content-type'] = 'application/json';
      }
    }
    if (config.send_idempotency_key && config.method !== 'GET' && config.method !== 'HEAD') {
      headers['idempotency-key'] = idempotencyKey;
    }
    const response = await deps.http
      .request({
        method: config.method,
        url: url.toString(),
        headers,
        body,
        timeoutMs: config.timeout_ms,
        maxRedirects: 5,
      })
      .catch((error: unknown) => {
        if (!(error instanceof OutboundHttpError)) throw error;
        // A refused or malformed target stays refused; only timeouts and network errors may pass.
        const retryable = error.code === 'timeout' || error.code === 'network_error';
        throw retryable
          ? ApplicationFailure.retryable(error.message, error.code)
          : ApplicationFailure.nonRetryable(error.message, error.code);
      });
    const text = textDecoder.decode(response.body);
    let parsed: unknown = text;
    if ((response.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const output = { status: response.status, headers: response.headers, body: parsed };
    if (config.fail_on_status && (response.status < 200 || response.status > 299)) {
      const message = `HTTP ${response.status} from ${url.host}`;
      // Server errors and rate limits may pass; other client errors will not, so retrying is waste.
      const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
      throw retryable
        ? ApplicationFailure.retryable(message, 'http_status', output)
        : ApplicationFailure.nonRetryable(message, 'http_status', output);
    }
    return output;
  }

  return {
    ...createCartActivities(deps),
    ...createDeliveryActivities(deps),
    ...createScheduleActivities(deps),
    ...createPollingActivities(deps),
    loadExecution: (ref: { executionId: string; organizationId: string }) => loadExecution(deps.db, ref),

    saveProgress: (progress: ExecutionProgress) => saveExecutionProgress(deps.db, progress, deps.engine),

    httpRequest(args: {
      config: Record<string, unknown>;
      idempotencyKey: string;
      inlineLimitBytes?: number;
    }) {
      return withHeartbeat(async () =>
        keepSmall(await performHttpRequest(args.config, args.idempotencyKey), args.inlineLimitBytes),
      );
    },

    async runCode(args: { config: Record<string, unknown>; input: unknown; inlineLimitBytes?: number }) {
      const config = CodeConfig.parse(args.config);
      const executionId = currentExecutionId();
      // User code sees every upstream output, large ones included: references are resolved here.
      const input = executionId
        ? await resolveStoredOutputs(deps.db, { executionId }, args.input)
        : args.input;
      try {
        return await keepSmall(
          await runSandboxedCode({
            code: config.code,
            input,
            timeoutMs: config.timeout_ms,
            memoryMb: config.memory_mb,
          }),
          args.inlineLimitBytes,
        );
      } catch (error) {
        // User code fails the same way every time: no point retrying. Anything else may be transient.
        if (error instanceof CodeRunError) throw ApplicationFailure.nonRetryable(error.message, error.code);
        throw error;
      }
    },

    /** action.event.publish, and error.critical: an event inside the execution's organization. */
    async publishEvent(args: {
      organizationId: string;
      executionId: string;
      event: string;
      payload: Record<string, unknown>;
    }) {
      const result = await withHeartbeat(() =>
        publishEvent({
          ctx: { db: deps.db, organizationId: args.organizationId, actor: {} },
          input: { event: args.event, payload: args.payload },
          engine: deps.engine,
          trigger: 'event',
          parentExecutionId: args.executionId,
        }),
      );
      return { workflows_triggered: result.workflows_triggered, execution_ids: result.execution_ids };
    },

    prepareChildExecution: (args: {
      organizationId: string;
      parentExecutionId: string;
      workflowId: string;
      payload: unknown;
    }) => prepareChildExecution(deps.db, args),

    /** Starts recorded executions now (the dispatcher's batches). */
    startExecutions: (args: { organizationId: string; executionIds: string[] }) =>
      deps.engine.startDirect(args.organizationId, args.executionIds),

    /**
     * A node that reads a stored (large) output: the references are resolved, the config rendered
     * and, where the node can run here, the node run here, so the large value never enters the
     * workflow. Nodes that must run in the workflow (delay, waits, loop, child workflows) get their
     * rendered config back, which must then be small enough for Temporal.
     */
    async runNodeOnStoredOutputs(args: {
      organizationId: string;
      executionId: string;
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
      const config = renderValue(args.config, scope, {
        now: new Date(args.now),
        timezone: args.timezone,
      }) as Record<string, unknown>;
      const small = (value: unknown) =>
        storeIfLarge(deps.db, ref, value, args.inlineLimitBytes ?? inlineLimit());
      const evaluated = (() => {
        try {
          switch (args.nodeType) {
            case 'action.transform':
              return { output: runTransform(config as unknown as RenderedTransformConfig) };
            case 'action.condition':
              return runCondition(config as unknown as RenderedConditionConfig);
            case 'action.switch':
              return runSwitch(config as unknown as RenderedSwitchConfig);
            default:
              return undefined;
          }
        } catch (error) {
          // Pure nodes fail the same way every time.
          throw ApplicationFailure.nonRetryable(
            error instanceof Error ? error.message : String(error),
            'node_failed',
          );
        }
      })();
      if (evaluated)
        return { ...evaluated, output: await small(evaluated.output), resolvedConfig: await small(config) };
      if (args.nodeType === 'action.http_request') {
        const output = await withHeartbeat(() => performHttpRequest(config, args.idempotencyKey));
        return { output: await small(output), resolvedConfig: await small(config) };
      }
      if (Buffer.byteLength(JSON.stringify(config)) > RENDERED_CONFIG_LIMIT_BYTES) {
        throw ApplicationFailure.nonRetryable(
          `${args.nodeType} cannot take a value this large from a stored output; pass a smaller part of it`,
          'stored_output_too_large',
        );
      }
      return { rendered: config, resolvedConfig: config };
    },

    /** E-mail, chat and AI nodes run through their organization modules, which are not built yet. */
    async runModuleNode(args: {
      organizationId: string;
      nodeType: string;
      config: unknown;
      idempotencyKey: string;
    }) {
      throw ApplicationFailure.nonRetryable(
        `${args.nodeType} needs its module (e-mail, chat or AI), which is not configured for this organization`,
        'module_not_configured',
      );
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
