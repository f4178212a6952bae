import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '@weft/api';
import { createSecretBox, type SecretBox } from '@weft/domain';
import { SEARCH_ATTRIBUTES } from '@weft/temporal';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { createTemporalEngine } from '@weft/temporal/temporal-engine';
import { createWorker } from '@weft/worker';
import { createTestDatabase, type TestDatabase } from './database';
import { createOrgWithKey, jsonRequester, pollExecution } from './requests';
import { startTemporalDevServer, startTimeSkippingServer, workflowBundle } from './temporal';

export interface EngineHarness {
  db: TestDatabase;
  temporal: TestWorkflowEnvironment;
  /** The task queue of the harness's worker (unique per harness). */
  taskQueue: string;
  /** True when the harness runs on the time-skipping test server (`timeSkipping: true`). */
  timeSkipping: boolean;
  /**
   * A Temporal client with the harness's payload codec. A plain client even with time skipping: its
   * `result()` does not skip time (use `waitForResult`, see there why).
   */
  client: Client;
  app: ReturnType<typeof createApp>;
  /** The APP_KEY-derived box of the harness's API and worker (for verbs a test calls directly). */
  secrets: SecretBox;
  request(method: string, path: string, options?: { key?: string; body?: unknown }): Promise<Response>;
  createOrg(name?: string): Promise<{ organizationId: string; key: string }>;
  /** Polls GET /executions/{id} until `done(execution)` or the timeout. */
  waitForExecution(
    key: string,
    id: string,
    done?: (execution: any) => boolean,
    timeoutMs?: number,
  ): Promise<any>;
  /**
   * Awaits the execution's Temporal workflow result (`exec-<id>`); rejects with WorkflowFailedError
   * when the workflow fails. With time skipping, the time up to each timer the workflow (or a child
   * it waits on) has pending is skipped, one timer at a time, whenever nothing else is running; a
   * workflow waiting with no timer (for a signal) makes it throw after `timeoutMs` of real time.
   */
  waitForResult(executionId: string, timeoutMs?: number): Promise<{ status: string }>;
  /** Lets `duration` of server time pass: skipped with time skipping, slept for real otherwise. */
  skipTime(duration: Parameters<TestWorkflowEnvironment['sleep']>[0]): Promise<void>;
  /** The Temporal server's current time (skipped time included), in ms since the epoch. */
  now(): Promise<number>;
  /** Stops the worker (as a crash would, for durability tests) and starts a new one. */
  restartWorker(): Promise<void>;
  close(): Promise<void>;
}

type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
/** A protobuf Timestamp or Duration (seconds may be a Long) in ms. */
const protoMs = (t: Timestamp) => Number(String(t?.seconds ?? 0)) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

/**
 * What a running workflow and the running children it started wait for: the server times its
 * pending timers fire at, and whether anything (a workflow task, an activity) is in progress.
 */
async function pendingWork(client: Client, workflowId: string): Promise<{ timers: number[]; busy: boolean }> {
  const handle = client.workflow.getHandle(workflowId);
  const { status, raw } = await handle.describe();
  if (status.name !== 'RUNNING') return { timers: [], busy: false };
  let busy = Boolean(raw.pendingWorkflowTask) || (raw.pendingActivities ?? []).length > 0;
  // The test server never reports pendingWorkflowTask: a workflow task is pending when one was
  // scheduled (or a signal came) after the last completed one.
  let taskPending = false;
  const timers = new Map<string, number>();
  const children = new Set<string>();
  for (const e of (await handle.fetchHistory()).events ?? []) {
    if (e.workflowTaskCompletedEventAttributes) taskPending = false;
    if (
      e.workflowTaskScheduledEventAttributes ||
      e.workflowTaskFailedEventAttributes ||
      e.workflowTaskTimedOutEventAttributes ||
      e.workflowExecutionSignaledEventAttributes
    ) {
      taskPending = true;
    }
    const started = e.timerStartedEventAttributes;
    if (started?.timerId) {
      timers.set(started.timerId, protoMs(e.eventTime) + protoMs(started.startToFireTimeout));
    }
    const ended = e.timerFiredEventAttributes?.timerId ?? e.timerCanceledEventAttributes?.timerId;
    if (ended) timers.delete(ended);
    const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    if (child) children.add(child);
  }
  busy ||= taskPending;
  const nested = await Promise.all([...children].map((id) => pendingWork(client, id)));
  return {
    timers: [...timers.values(), ...nested.flatMap((n) => n.timers)],
    busy: busy || nested.some((n) => n.busy),
  };
}

/** temporal.api.enums.v1.IndexedValueType by SearchAttributeType (@temporalio/proto is not a dependency here). */
const INDEXED_VALUE_TYPE = { TEXT: 1, KEYWORD: 2, INT: 3, DOUBLE: 4, BOOL: 5, DATETIME: 6, KEYWORD_LIST: 7 };

/**
 * The time-skipping test server has no `--search-attribute` flag and refuses unknown attributes
 * ("search attribute WeftOrgId is not defined"), so Weft's are added through its operator service.
 */
async function registerSearchAttributes(temporal: TestWorkflowEnvironment, namespace: string) {
  await temporal.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      Object.values(SEARCH_ATTRIBUTES).map(({ name, type }) => [name, INDEXED_VALUE_TYPE[type]]),
    ),
  });
}

/**
 * The whole engine on real servers: a fresh PostgreSQL database, a Temporal dev server, a worker
 * running the real workflow bundle and activities, and the API app with the Temporal engine.
 *
 * `timeSkipping: true` runs on the time-skipping test server (Java) instead: its clock runs at real
 * speed except while `waitForResult` or `skipTime` make it jump ahead. No Schedules there. Time is
 * global to the server, so tests sharing one harness must run serially.
 *
 * Why not TestWorkflowEnvironment's TimeSkippingClient (which unlocks time skipping for the whole
 * of `result()`): every activity leaves its 10-year schedule-to-start/close timeout timers (the
 * default run timeout) on that server after it completes, and an unlocked server with nothing else
 * to do jumps to them. The clock then ends 10 years ahead, and later executions overflow the
 * int4 `duration_ms` columns. So `waitForResult` skips only up to the timers the workflow awaits.
 */
export async function createEngineHarness(
  options: {
    ssrfAllowlist?: string[];
    timeSkipping?: boolean;
    /**
     * A Temporal dev server of its own instead of the run's shared one: for a file that reconciles
     * schedules (which acts on every schedule of the server).
     */
    ownTemporalServer?: boolean;
    outputInlineLimitBytes?: number;
    /** Short webhook delivery retry intervals, so retry tests take seconds instead of minutes. */
    deliveryRetry?: { initialIntervalMs?: number; maximumIntervalMs?: number };
    /** Where the chat providers are (local fakes): CHAT_CLOUD_BASE_URL, CHAT_GATEWAY_BASE_URL. */
    chatCloudBaseUrl?: string;
    chatGatewayBaseUrl?: string;
    chatGatewayContentBaseUrl?: string;
    /** MCP_CALL_TIMEOUT (seconds) of the harness's API. */
    mcpCallTimeout?: number;
    /** WORKER_WORKFLOW_THREADS and WORKER_STACK_TRACES of the harness's worker (defaults: 0, off). */
    workflowThreads?: number;
    stackTraces?: boolean;
    /** More of the API's environment (a low HOOK_RATE_LIMIT, a captcha with a local verify URL). */
    apiEnv?: Partial<Parameters<typeof createApp>[0]['env']>;
  } = {},
): Promise<EngineHarness> {
  const timeSkipping = options.timeSkipping ?? false;
  const [db, temporal, bundle] = await Promise.all([
    createTestDatabase(),
    timeSkipping
      ? startTimeSkippingServer()
      : startTemporalDevServer({ ownServer: options.ownTemporalServer }),
    workflowBundle(),
  ]);
  // Unique per harness: the cluster test run shares one Temporal server between test files.
  const taskQueue = `weft-${randomUUID()}`;
  const appKey = randomBytes(32);
  const namespace = temporal.namespace ?? 'default';
  // The same encryption as production: the API's client and the worker share the key.
  const client = new Client({
    connection: temporal.connection,
    namespace,
    dataConverter: { payloadCodecs: [createEncryptionCodec(appKey)] },
  });
  if (timeSkipping) await registerSearchAttributes(temporal, namespace);
  const engine = createTemporalEngine({
    client,
    taskQueue,
    deliveryRetry: options.deliveryRetry,
  });
  const app = createApp({
    db: db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 1_000_000,
      RATE_LIMIT_PER_ORG: 1_000_000,
      TRUST_PROXY_HOPS: 0,
      TEMPORAL_UI_URL: 'http://localhost:8233',
      ...(options.mcpCallTimeout ? { MCP_CALL_TIMEOUT: options.mcpCallTimeout } : {}),
      ...(options.chatCloudBaseUrl ? { CHAT_CLOUD_BASE_URL: options.chatCloudBaseUrl } : {}),
      ...(options.chatGatewayBaseUrl ? { CHAT_GATEWAY_BASE_URL: options.chatGatewayBaseUrl } : {}),
      ...(options.chatGatewayContentBaseUrl
        ? { CHAT_GATEWAY_CONTENT_BASE_URL: options.chatGatewayContentBaseUrl }
        : {}),
      ...options.apiEnv,
    },
    temporalReady: async () => true,
    engine,
    // The same APP_KEY as the worker: it decrypts the webhook secrets the API encrypted.
    appKey,
    ssrfAllowlist: options.ssrfAllowlist ?? [],
    logError: (error) => console.error(error),
  });

  let running: { stop: () => Promise<void> } | undefined;
  const startWorker = async () => {
    const { worker, close } = await createWorker({
      connection: { address: temporal.address },
      namespace: temporal.namespace ?? 'default',
      taskQueue,
      db: db.app.db,
      ssrfAllowlist: options.ssrfAllowlist ?? [],
      appKey,
      workflowBundle: bundle,
      outputInlineLimitBytes: options.outputInlineLimitBytes,
      deliveryRetry: options.deliveryRetry,
      chatCloudBaseUrl: options.chatCloudBaseUrl,
      chatGatewayBaseUrl: options.chatGatewayBaseUrl,
      chatGatewayContentBaseUrl: options.chatGatewayContentBaseUrl,
      siteUrl: 'http://localhost:3000',
      workflowThreads: options.workflowThreads,
      stackTraces: options.stackTraces,
    });
    const done = worker.run();
    running = {
      async stop() {
        worker.shutdown();
        await done;
        await close();
      },
    };
  };
  await startWorker();

  const request: EngineHarness['request'] = jsonRequester(app);

  return {
    db,
    temporal,
    timeSkipping,
    taskQueue,
    client,
    app,
    secrets: createSecretBox(appKey),
    request,
    async createOrg(name = 'Acme') {
      const { organizationId, key } = await createOrgWithKey(db.app.db, name);
      return { organizationId, key };
    },
    async waitForExecution(key, id, done, timeoutMs = 60_000) {
      const polled = await pollExecution(request, key, id, { done, timeoutMs, intervalMs: 50 });
      if (!polled.timedOut) return polled.execution;
      throw new Error(`execution ${id} did not reach the expected state: ${JSON.stringify(polled.last)}`);
    },
    async waitForResult(executionId, timeoutMs = 60_000) {
      const handle = client.workflow.getHandle(`exec-${executionId}`);
      if (!timeSkipping) return handle.result();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if ((await handle.describe()).status.name !== 'RUNNING') return handle.result();
        const { timers, busy } = await pendingWork(client, handle.workflowId);
        if (!busy && timers.length > 0) {
          const wait = Math.min(...timers) - (await temporal.currentTimeMs());
          // Skipping to a timer's instant fires it; one already due fires on its own, in real time.
          if (wait > 0) {
            await temporal.sleep(wait);
            continue;
          }
        }
        if (Date.now() > deadline) {
          throw new Error(
            `exec-${executionId} is still running (${busy ? 'busy' : `${timers.length} timers`}): waiting for a signal?`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    skipTime(duration) {
      return temporal.sleep(duration);
    },
    now() {
      return temporal.currentTimeMs();
    },
    async restartWorker() {
      await running?.stop();
      await startWorker();
    },
    async close() {
      await running?.stop();
      await temporal.teardown();
      await db.drop();
    },
  };
}
