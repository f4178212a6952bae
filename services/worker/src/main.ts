import { loadEnv, WorkerEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
import { parseAllowlist } from '@weft/services';
import { createWorker } from './worker';

const env = loadEnv(WorkerEnv, process.env);
if (!env.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for the worker (weft up sets it).');
if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required for the worker (weft up sets it).');
const database = connectDatabase(env.DATABASE_URL, { max: env.DATABASE_POOL_SIZE });
const { worker, close } = await createWorker({
  address: env.TEMPORAL_ADDRESS,
  namespace: env.TEMPORAL_NAMESPACE,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
  db: database.db,
  ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
  appKey: env.APP_KEY,
  maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
  workflowBundle: env.WORKFLOW_BUNDLE_PATH ? { codePath: env.WORKFLOW_BUNDLE_PATH } : undefined,
});
// Worker.run() resolves after SIGINT/SIGTERM: the SDK installs the signal handlers and drains tasks.
console.log(`[worker] polling task queue "${env.TEMPORAL_TASK_QUEUE}" on ${env.TEMPORAL_ADDRESS}`);
await worker.run();
await close();
await database.close();
