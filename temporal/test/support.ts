/**
 * Test support for the durability and replay tests: the engine on real servers like
 * `createEngineHarness`, except that workers (and, if wanted, the API) are the real service
 * processes, spawned as children, so that a test can SIGKILL them, and that the payload key is
 * chosen by the test (replay fixtures need a fixed one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '@weft/api';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { createTemporalEngine } from '@weft/temporal/temporal-engine';
import {
  createOrgWithKey,
  createTestDatabase,
  jsonRequester,
  pollExecution,
  startTemporalDevServer,
  type TestDatabase,
  workflowBundle,
} from '@weft/testing';
import { inject } from 'vitest';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TASK_QUEUE = 'weft';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `APP_KEY` as the services read it from the environment. */
export function appKeyEnv(key: Uint8Array): string {
  return `base64:${Buffer.from(key).toString('base64')}`;
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Resolves once the process printed its ready line; rejects if it exits first. */
  ready: Promise<void>;
  /** Resolves with the exit code or signal. */
  exited: Promise<string>;
  /** Everything the process wrote (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL: the process gets no chance to drain or report anything. */
  kill(): Promise<string>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<string>;
}

/**
 * Spawns a real service process (`services/<name>/src/main.ts`) from its bundle, as `weft up` runs
 * it (service-bundles-setup.ts built it). `readyLine` is the log line that says the service is
 * serving.
 */
export function spawnService(
  name: 'worker' | 'api',
  env: Record<string, string>,
  readyLine: RegExp = name === 'worker' ? /polling task queue/ : /listening on/,
): ServiceProcess {
  const child = spawn(process.execPath, [inject('serviceBundles')[name]], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code))),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.length > 200_000) log = log.slice(-100_000);
      if (readyLine.test(log)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((how) =>
      reject(new Error(`${name} exited (${how}) before it was ready:\n${log.slice(-4000)}`)),
    );
  });
  // A test that never awaits `ready` must not crash on its rejection.
  ready.catch(() => {});
  return {
    child,
    ready,
    exited,
    output: () => log,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface CountedCall {
  path: string;
  key: string | undefined;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface CountingServer {
  server: Server;
  baseUrl: string;
  calls: CountedCall[];
  /** How many requests each path received. */
  byPath(path: string): number;
  /** How many requests carried each Idempotency-Key. */
  byKey(): Map<string, number>;
  /** Requests received and not answered yet. */
  inFlight(): number;
  /** Paths answering 400 until they are removed from this set. */
  failing: Set<string>;
  /** Paths answering 400 to the first call with each Idempotency-Key, 200 afterwards. */
  failingOnce: Set<string>;
}

/**
 * A local HTTP server that counts calls per path and per Idempotency-Key and answers after a
 * random 100–300 ms (so that a kill lands while some requests are in flight).
 */
export async function startCountingServer(
  latency: () => number = () => 100 + Math.random() * 200,
): Promise<CountingServer> {
  const calls: CountedCall[] = [];
  const failing = new Set<string>();
  const failingOnce = new Set<string>();
  const seenKeys = new Set<string>();
  let inFlight = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const url = req.url ?? '/';
    const header = req.headers['idempotency-key'];
    const key = Array.isArray(header) ? header[0] : header;
    calls.push({ path: url, key, at: Date.now() });
    const firstWithKey = key !== undefined && !seenKeys.has(key);
    if (key) seenKeys.add(key);
    inFlight++;
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        inFlight--;
        const fail = failing.has(url) || (failingOnce.has(url) && firstWithKey);
        res.writeHead(fail ? 400 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fail ? { error: 'not yet' } : { path: url, key: key ?? null, ok: true }));
      }, latency());
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    calls,
    failing,
    failingOnce,
    byPath: (p) => calls.filter((c) => c.path === p).length,
    byKey() {
      const counts = new Map<string, number>();
      for (const c of calls) if (c.key) counts.set(c.key, (counts.get(c.key) ?? 0) + 1);
      return counts;
    },
    inFlight: () => inFlight,
  };
}

export interface Stack {
  db: TestDatabase;
  temporal: TestWorkflowEnvironment;
  appKey: Uint8Array;
  /** A Temporal client with the stack's payload codec. */
  client: Client;
  app: ReturnType<typeof createApp>;
  /** The environment of a worker or API process of this stack. */
  serviceEnv: Record<string, string>;
  request(method: string, path: string, options?: { key?: string; body?: unknown }): Promise<Response>;
  createOrg(name?: string): Promise<{ organizationId: string; key: string }>;
  waitForExecution(
    key: string,
    id: string,
    done?: (execution: any) => boolean,
    timeoutMs?: number,
  ): Promise<any>;
  /** Spawns `services/worker/src/main.ts` against this stack and waits until it polls. */
  startWorker(): Promise<ServiceProcess>;
  close(): Promise<void>;
}

/**
 * A fresh database, a Temporal dev server and the API app in process (wired as in
 * packages/testing/src/engine-harness.ts), with no worker: tests start worker processes themselves.
 */
export async function createStack(
  options: {
    appKey?: Uint8Array /** CHAT_CLOUD_BASE_URL of the API and workers (a local stand-in). */;
    chatCloudBaseUrl?: string;
  } = {},
): Promise<Stack> {
  const [db, temporal, bundle] = await Promise.all([
    createTestDatabase(),
    // Its own server: its workers use one fixed task queue and reconcile every schedule they see.
    startTemporalDevServer({ ownServer: true }),
    workflowBundle(),
  ]);
  // Prebuilt, as `weft up` runs workers: a restarted worker polls in a second instead of bundling.
  const bundleDir = await mkdtemp(path.join(os.tmpdir(), 'weft-bundle-'));
  const bundlePath = path.join(bundleDir, 'workflows.js');
  await writeFile(bundlePath, bundle.code);
  const appKey = options.appKey ?? randomBytes(32);
  const namespace = temporal.namespace ?? 'default';
  const client = new Client({
    connection: temporal.connection,
    namespace,
    dataConverter: { payloadCodecs: [createEncryptionCodec(appKey)] },
  });
  const engine = createTemporalEngine({ client, taskQueue: TASK_QUEUE });
  const app = createApp({
    db: db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 1_000_000,
      RATE_LIMIT_PER_ORG: 1_000_000,
      TRUST_PROXY_HOPS: 0,
      TEMPORAL_UI_URL: 'http://localhost:8233',
      ...(options.chatCloudBaseUrl ? { CHAT_CLOUD_BASE_URL: options.chatCloudBaseUrl } : {}),
    },
    temporalReady: async () => true,
    engine,
    // The workers' APP_KEY: what the API encrypts (module secrets), they decrypt.
    appKey,
    ssrfAllowlist: ['127.0.0.0/8'],
    logError: (error) => console.error(error),
  });
  const serviceEnv: Record<string, string> = {
    ...(options.chatCloudBaseUrl ? { CHAT_CLOUD_BASE_URL: options.chatCloudBaseUrl } : {}),
    DATABASE_URL: db.appUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    APP_KEY: appKeyEnv(appKey),
    SSRF_ALLOWLIST: '127.0.0.0/8',
    WORKFLOW_BUNDLE_PATH: bundlePath,
  };
  const processes: ServiceProcess[] = [];

  const request: Stack['request'] = jsonRequester(app);

  return {
    db,
    temporal,
    appKey,
    client,
    app,
    serviceEnv,
    request,
    async createOrg(name = 'Acme') {
      const { organizationId, key } = await createOrgWithKey(db.app.db, name);
      return { organizationId, key };
    },
    async waitForExecution(key, id, done, timeoutMs = 30_000) {
      const polled = await pollExecution(request, key, id, { done, timeoutMs, intervalMs: 100 });
      if (!polled.timedOut) return polled.execution;
      const last = polled.last;
      throw new Error(
        `execution ${id} did not reach the expected state: ${JSON.stringify({
          status: last?.status,
          attempt: last?.attempt,
          steps: last?.steps?.map((s: any) => `${s.node_id}:${s.status}@${s.attempt}`),
        })}\n${await diagnose(client, id)}\nlast worker output:\n${
          processes.at(-1)?.output().slice(-3000) ?? '(none)'
        }`,
      );
    },
    async startWorker() {
      const worker = spawnService('worker', serviceEnv);
      processes.push(worker);
      await worker.ready;
      return worker;
    },
    async close() {
      await Promise.all(processes.map((p) => p.kill()));
      await temporal.teardown();
      await db.drop();
      await rm(bundleDir, { recursive: true, force: true });
    },
  };
}

/** temporal.api.enums.v1.EventType names, short, for failure messages. */
const EVENT_NAMES: Record<number, string> = {
  1: 'WorkflowStarted',
  2: 'WorkflowCompleted',
  3: 'WorkflowFailed',
  5: 'WorkflowTaskScheduled',
  6: 'WorkflowTaskStarted',
  7: 'WorkflowTaskCompleted',
  8: 'WorkflowTaskTimedOut',
  9: 'WorkflowTaskFailed',
  10: 'ActivityScheduled',
  11: 'ActivityStarted',
  12: 'ActivityCompleted',
  13: 'ActivityFailed',
  14: 'ActivityTimedOut',
  17: 'TimerStarted',
  18: 'TimerFired',
  25: 'MarkerRecorded',
  26: 'Signaled',
};

/** Temporal's view of an execution, for failure messages: pending work and the last events. */
export async function diagnose(client: Client, executionId: string): Promise<string> {
  try {
    const handle = client.workflow.getHandle(`exec-${executionId}`);
    const { raw, status } = await handle.describe();
    const activities = (raw.pendingActivities ?? []).map(
      (a) =>
        `${a.activityType?.name}#${a.activityId} ${a.state} attempt ${a.attempt}${
          a.lastFailure?.message ? ` (${a.lastFailure.message})` : ''
        }`,
    );
    const task = raw.pendingWorkflowTask
      ? `workflow task ${raw.pendingWorkflowTask.state} attempt ${raw.pendingWorkflowTask.attempt}`
      : 'no pending workflow task';
    const events = (await handle.fetchHistory()).events ?? [];
    const tail = events
      .slice(-12)
      .map((e) => `${e.eventId} ${EVENT_NAMES[Number(e.eventType)] ?? e.eventType}`)
      .join(', ');
    return `temporal: ${status.name}; ${task}; activities: [${activities.join('; ')}]; last events: ${tail}`;
  } catch (error) {
    return `temporal: ${String(error)}`;
  }
}

/**
 * Waits until Temporal has nothing left to do for an execution (no activity and no workflow task
 * pending): a failed execution is then parked, waiting for its retry signal.
 */
export async function waitUntilIdle(client: Client, executionId: string, timeoutMs = 30_000) {
  const handle = client.workflow.getHandle(`exec-${executionId}`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { raw } = await handle.describe();
    if ((raw.pendingActivities ?? []).length === 0 && !raw.pendingWorkflowTask) return;
    await sleep(50);
  }
  throw new Error(`exec-${executionId} still busy: ${await diagnose(client, executionId)}`);
}

/** Creates a workflow through the API and returns its id. */
export async function createWorkflow(
  stack: Stack,
  key: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await stack.request('POST', '/api/v1/workflows', {
    key,
    body: { trigger_type: 'manual', status: 'active', ...body },
  });
  const json = (await res.json()) as any;
  if (res.status !== 201) throw new Error(`workflow not created (${res.status}): ${JSON.stringify(json)}`);
  return json.id as string;
}

/** POST /workflows/{id}/execute; returns the execution id. */
export async function execute(
  stack: Stack,
  key: string,
  workflowId: string,
  input: Record<string, unknown> = {},
): Promise<string> {
  const res = await stack.request('POST', `/api/v1/workflows/${workflowId}/execute`, {
    key,
    body: { input },
  });
  const json = (await res.json()) as any;
  if (res.status !== 202) throw new Error(`execute answered ${res.status}: ${JSON.stringify(json)}`);
  return json.execution_id as string;
}

export const transform = (id: string, assignments: Record<string, string>) => ({
  id,
  type: 'action.transform',
  config: { assignments: Object.entries(assignments).map(([key, value]) => ({ key, value })) },
});

export const httpPost = (id: string, url: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'action.http_request',
  config: { url, method: 'POST', body: { node: id } },
  ...extra,
});

export const chain = (...ids: string[]) =>
  ids.slice(1).map((target, i) => ({ source: ids[i] as string, target }));
