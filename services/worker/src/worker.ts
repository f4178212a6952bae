import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { exportWorkflowStackTraces } from '@weft/config';
import type { Database } from '@weft/db';
import { createOutboundHttpClient, createSecretBox } from '@weft/domain';
import { createActivities } from '@weft/temporal/activities';
import { PRELOADED_WORKFLOW_MODULES, WORKFLOWS_PATH } from '@weft/temporal/bundle';
import { createEncryptionCodec } from '@weft/temporal/codec';
import type { TemporalConnectionOptions } from '@weft/temporal/connection';
import { reconcileTriggerSchedules } from '@weft/temporal/schedules';
import { createMetricsSinks } from '@weft/temporal/sinks';
import { createTemporalEngine } from '@weft/temporal/temporal-engine';

export interface WorkerOptions {
  /** From temporalConnectionOptions (TLS, API key), or `{ address }` for a local plaintext server. */
  connection: TemporalConnectionOptions;
  namespace: string;
  taskQueue: string;
  db: Database;
  /** CIDRs the HTTP node and polling may reach although private (SSRF_ALLOWLIST). */
  ssrfAllowlist: string[];
  /** CHAT_CLOUD_BASE_URL / CHAT_GATEWAY_BASE_URL (defaults: the real providers). */
  chatCloudBaseUrl?: string;
  chatGatewayBaseUrl?: string;
  chatGatewayContentBaseUrl?: string;
  /** APP_URL: where links in messages (signed approval links) point. */
  siteUrl?: string;
  /** APP_KEY: payloads (trigger data, step outputs) are encrypted in Temporal's history with it. */
  appKey: Uint8Array;
  /** APP_KEYS_PREVIOUS: stored secrets and payloads sealed with them still open (docs/key-custody.md). */
  previousAppKeys?: readonly Uint8Array[];
  /** Node outputs with larger JSON go to PostgreSQL and travel by reference (OUTPUT_INLINE_LIMIT_BYTES). */
  outputInlineLimitBytes?: number;
  /** Workflow runs kept in memory between tasks (SDK default: ~600 per GB of heap). */
  maxCachedWorkflows?: number;
  /** Deadlock limit of one workflow activation, ms; 0 (default) = none, no watchdog thread per VM call. */
  isolateTimeoutMs?: number;
  /** WORKER_STACK_TRACES: the SDK's per-promise stack tracking (for the `__stack_trace` query). */
  stackTraces?: boolean;
  /** WORKER_WORKFLOW_THREADS: 0 runs workflow code on the main thread (the SDK's `debugMode` VM). */
  workflowThreads?: number;
  /** A prebuilt bundle (`build-bundle.ts`), or bundled code shared across test workers. */
  workflowBundle?: { code: string } | { codePath: string };
  /** Overrides of the webhook delivery retry policy (tests only; production uses DELIVERY_RETRY_POLICY). */
  deliveryRetry?: { initialIntervalMs?: number; maximumIntervalMs?: number };
}

/**
 * Connects to Temporal and builds the worker (workflow bundle + activities); call `run()` on it.
 *
 * The worker and its client share one NativeConnection (Rust core, cheaper than the pure-JS gRPC
 * client), which also lets every start made through `engine` be eager: the server hands the first
 * workflow task back to this worker in the same reply, skipping matching and its task-queue writes.
 * An API in the same process (`RUN_WORKER`) starts its executions through this engine too.
 */
export async function createWorker(options: WorkerOptions) {
  const connection = await NativeConnection.connect(options.connection);
  const dataConverter = { payloadCodecs: [createEncryptionCodec(options.appKey, options.previousAppKeys)] };
  const client = new Client({ connection, namespace: options.namespace, dataConverter });
  const engine = createTemporalEngine({
    client,
    taskQueue: options.taskQueue,
    deliveryRetry: options.deliveryRetry,
    eagerStart: true,
  });
  const http = createOutboundHttpClient({ allowlist: options.ssrfAllowlist });
  exportWorkflowStackTraces(options.stackTraces ?? false);
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: PRELOADED_WORKFLOW_MODULES } }),
    activities: createActivities({
      db: options.db,
      engine,
      http,
      outputInlineLimitBytes: options.outputInlineLimitBytes,
      secrets: createSecretBox(options.appKey, options.previousAppKeys),
      ssrfAllowlist: options.ssrfAllowlist,
      chatCloudBaseUrl: options.chatCloudBaseUrl,
      chatGatewayBaseUrl: options.chatGatewayBaseUrl,
      chatGatewayContentBaseUrl: options.chatGatewayContentBaseUrl,
      siteUrl: options.siteUrl,
    }),
    dataConverter,
    sinks: createMetricsSinks(),
    // Honoured though missing from the public WorkerOptions type (the SDK spreads options over its
    // defaults); our patch of @temporalio/worker makes 0 mean "no watchdog".
    ...({ isolateExecutionTimeout: options.isolateTimeoutMs ?? 0 } as object),
    // The SDK's debugMode does two things: it runs workflow code on this thread (what we want) and
    // lifts the deadlock timeout when none is given (ours is given just above).
    ...((options.workflowThreads ?? 0) === 0
      ? { debugMode: true }
      : { workflowThreadPoolSize: options.workflowThreads }),
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
  });
  return {
    worker,
    /** The engine this worker's activities use (the outbox sweeper starts deliveries through it). */
    engine,
    /** The worker's connection: answers readiness checks of an API in the same process. */
    connection,
    /** A client on that connection (the task-queue backlog metrics read through it). */
    client,
    /** Repairs drift between workflows and their Temporal Schedules (run on start). */
    reconcileSchedules: () =>
      reconcileTriggerSchedules({ client, taskQueue: options.taskQueue, db: options.db }),
    async close() {
      await http.close();
      await connection.close();
    },
  };
}
