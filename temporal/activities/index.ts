import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Database } from '@weft/db';
import { CodeConfig, HttpRequestConfig } from '@weft/nodes';
import { CodeRunError, runSandboxedCode } from '@weft/nodes/code/run';
import {
  type createOutboundHttpClient,
  type ExecutionEngine,
  type ExecutionProgress,
  loadExecution,
  OutboundHttpError,
  publishEvent,
  saveExecutionProgress,
} from '@weft/services';
import { prepareChildExecution } from './prepare-child-execution';

export interface ActivityDeps {
  db: Database;
  engine: ExecutionEngine & { startDirect(organizationId: string, executionIds: string[]): Promise<void> };
  http: ReturnType<typeof createOutboundHttpClient>;
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
  return {
    loadExecution: (ref: { executionId: string; organizationId: string }) => loadExecution(deps.db, ref),

    saveProgress: (progress: ExecutionProgress) => saveExecutionProgress(deps.db, progress),

    /** action.http_request through the SSRF-guarded client. The step key doubles as Idempotency-Key. */
    httpRequest(args: { config: Record<string, unknown>; idempotencyKey: string }) {
      return withHeartbeat(async () => {
        const config = HttpRequestConfig.parse(args.config);
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
          headers['idempotency-key'] = args.idempotencyKey;
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
      });
    },

    async runCode(args: { config: Record<string, unknown>; input: unknown }) {
      const config = CodeConfig.parse(args.config);
      try {
        return await runSandboxedCode({
          code: config.code,
          input: args.input,
          timeoutMs: config.timeout_ms,
          memoryMb: config.memory_mb,
        });
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
