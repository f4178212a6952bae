import { loadProcessEnv, WorkerEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
import { createSecretBox, keyRingStartRefusal } from '@weft/domain';
import {
  collectProcessMetrics,
  configureLogging,
  type MetricsServer,
  routeConsoleToLogger,
  startMetricsServer,
  watchDatabasePool,
} from '@weft/telemetry';
import { startWorkerRuntime } from './run-worker';

const env = loadProcessEnv(WorkerEnv);
const logger = configureLogging({ level: env.LOG_LEVEL });
// Whatever still writes to the console (libraries) comes out as JSON lines at its level too.
routeConsoleToLogger(logger);
collectProcessMetrics();
const { TEMPORAL_ADDRESS } = env;
if (!TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for the worker (weft up sets it).');
if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required for the worker (weft up sets it).');
const database = connectDatabase(env.DATABASE_URL, { max: env.DATABASE_POOL_SIZE });
// A key that opens nothing the database holds would fail every step that needs a secret (docs/key-custody.md).
const keyRefusal = await keyRingStartRefusal(
  database.db,
  createSecretBox(env.APP_KEY, env.APP_KEYS_PREVIOUS),
  (message, error) => logger.warn({ component: 'worker', err: error }, message),
);
if (keyRefusal) {
  process.stderr.write(`weft worker: ${keyRefusal}\n`);
  await database.close();
  process.exit(1);
}
watchDatabasePool(() => database.poolUse());
const { done } = await startWorkerRuntime({ ...env, TEMPORAL_ADDRESS }, database.db);
// Under `weft up` an IPC channel is open: "ready" ends this process's `starting` state in /readyz.
// The channel is unref'd so it never keeps the process alive after the worker has drained.
process.send?.({ weft: 'ready' });
process.channel?.unref();
// The worker has no HTTP server: its metrics get one of their own. (A worker inside the API
// process, RUN_WORKER, shares the API's /metrics instead.) A taken port costs the metrics only.
let metricsServer: MetricsServer | undefined;
if (env.WORKER_METRICS_PORT > 0) {
  metricsServer = await startMetricsServer({
    host: env.METRICS_HOST,
    port: env.WORKER_METRICS_PORT,
    token: env.METRICS_TOKEN,
  }).catch((error: unknown) => {
    logger.error({ err: error, port: env.WORKER_METRICS_PORT }, 'worker metrics are not served');
    return undefined;
  });
  if (metricsServer) logger.info({ component: 'worker', url: metricsServer.url }, 'worker metrics served');
}
// Worker.run() resolves after SIGINT/SIGTERM: the SDK installs the signal handlers and drains tasks.
await done;
await metricsServer?.close();
await database.close();
