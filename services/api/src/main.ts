import { Client, Connection } from '@temporalio/client';
import { ApiEnv, loadProcessEnv, WorkerEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
import { createSecretBox, keyRingStartRefusal, parseAllowlist, readSupervisedWorker } from '@weft/domain';
import {
  collectProcessMetrics,
  configureLogging,
  routeConsoleToLogger,
  watchDatabasePool,
} from '@weft/telemetry';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { temporalConnectionOptions } from '@weft/temporal/connection';
import { createTemporalEngine, type TemporalEngine } from '@weft/temporal/temporal-engine';
import { startWorkerRuntime } from '@weft/worker/run-worker';
import { createApp } from './app';
import { captchaSettings } from './auth/web-session';
import { createHttpServer } from './server';
import { loadWebHandler } from './web-handler';
import { captchaCspSources } from './web-security-headers';

const env = loadProcessEnv(ApiEnv);
const logger = configureLogging({ level: env.LOG_LEVEL });
// Whatever still writes to the console (libraries) comes out as JSON lines at its level too.
routeConsoleToLogger(logger);
collectProcessMetrics();
if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required for the API server (weft up sets it).');
const database = connectDatabase(env.DATABASE_URL, { max: env.DATABASE_POOL_SIZE });
// A key that opens nothing the database holds would serve reads and fail every secret (docs/key-custody.md).
const keyRefusal = await keyRingStartRefusal(
  database.db,
  createSecretBox(env.APP_KEY, env.APP_KEYS_PREVIOUS),
  (message, error) => logger.warn({ component: 'api', err: error }, message),
);
if (keyRefusal) {
  process.stderr.write(`weft api: ${keyRefusal}\n`);
  await database.close();
  process.exit(1);
}
watchDatabasePool(() => database.poolUse());

let temporal: Promise<Connection> | undefined;
let engine: TemporalEngine;
let temporalReady: () => Promise<boolean>;
let workerDone: Promise<void> | undefined;
if (env.RUN_WORKER) {
  // One process for API and worker: executions start eagerly on the worker in this process.
  const { TEMPORAL_ADDRESS } = env;
  if (!TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required with RUN_WORKER (weft up sets it).');
  const runtime = await startWorkerRuntime({ ...loadProcessEnv(WorkerEnv), TEMPORAL_ADDRESS }, database.db);
  engine = runtime.engine;
  // A worker that fails takes the process down, as a worker process would: `weft up` (or the
  // orchestrator) then sees it, instead of an API that accepts executions nothing runs.
  workerDone = runtime.done.catch((error: unknown) => {
    logger.fatal({ component: 'worker', err: error }, 'worker stopped with an error');
    process.exit(1);
  });
  temporalReady = async () => {
    await runtime.connection.workflowService.getSystemInfo({});
    return true;
  };
} else {
  temporalReady = async () => {
    if (!env.TEMPORAL_ADDRESS) return false;
    temporal ??= Connection.connect({
      ...temporalConnectionOptions(env, env.TEMPORAL_ADDRESS),
      connectTimeout: 2000,
    }).catch((error) => {
      temporal = undefined;
      throw error;
    });
    await (await temporal).workflowService.getSystemInfo({});
    return true;
  };
  // The engine's client connects lazily: the API starts (and answers /readyz with 503) before Temporal does.
  const temporalClient = new Client({
    connection: Connection.lazy(temporalConnectionOptions(env, env.TEMPORAL_ADDRESS ?? 'localhost:7233')),
    namespace: env.TEMPORAL_NAMESPACE,
    dataConverter: { payloadCodecs: [createEncryptionCodec(env.APP_KEY, env.APP_KEYS_PREVIOUS)] },
  });
  engine = createTemporalEngine({
    client: temporalClient,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
  });
}
const app = createApp({
  db: database.db,
  env,
  temporalReady,
  engine,
  appKey: env.APP_KEY,
  previousAppKeys: env.APP_KEYS_PREVIOUS,
  ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
  // `weft up` in the split layout: its supervisor knows at once when the worker process is down.
  workerState: env.WEFT_RUN_STATE_FILE ? readSupervisedWorker.bind(null, env.WEFT_RUN_STATE_FILE) : undefined,
});
const web = await loadWebHandler(env.WEB_BUILD_DIR);
if (!web)
  logger.warn({ component: 'api' }, 'web/build is missing: the web app is not served (weft up builds it)');
const server = createHttpServer(app, web, captchaCspSources(captchaSettings(env)));
server.keepAliveTimeout = 65_000;
server.listen(env.PORT, env.HOST, () => {
  // The address really bound (HOST, and the port the system chose for PORT=0); APP_URL is the public
  // URL, often a proxy's, and says nothing about who can connect.
  const bound = server.address();
  const where =
    bound && typeof bound === 'object'
      ? `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`
      : String(bound);
  logger.info(
    { component: 'api', address: `http://${where}`, app_url: env.APP_URL },
    `listening on http://${where}`,
  );
  // Under `weft up` an IPC channel is open: "ready" tells its supervisor this process serves.
  process.send?.({ weft: 'ready' });
  process.channel?.unref();
});

async function shutdown() {
  server.close();
  server.closeIdleConnections();
  // An in-process worker drains first (the SDK shuts it down on the same signal).
  await workerDone;
  await database.close();
  await (await temporal?.catch(() => undefined))?.close();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
