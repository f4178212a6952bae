import { loadEnv, WorkerEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
import { parseAllowlist, startDeliverySweeper } from '@weft/services';
import { createWorker } from './worker';

const env = loadEnv(WorkerEnv, process.env);
if (!env.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for the worker (weft up sets it).');
if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required for the worker (weft up sets it).');
const database = connectDatabase(env.DATABASE_URL, { max: env.DATABASE_POOL_SIZE });
const { worker, engine, reconcileSchedules, close } = await createWorker({
  address: env.TEMPORAL_ADDRESS,
  namespace: env.TEMPORAL_NAMESPACE,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
  db: database.db,
  ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
  appKey: env.APP_KEY,
  maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
  outputInlineLimitBytes: env.OUTPUT_INLINE_LIMIT_BYTES,
  workflowBundle: env.WORKFLOW_BUNDLE_PATH ? { codePath: env.WORKFLOW_BUNDLE_PATH } : undefined,
});
// Worker.run() resolves after SIGINT/SIGTERM: the SDK installs the signal handlers and drains tasks.
console.log(`[worker] polling task queue "${env.TEMPORAL_TASK_QUEUE}" on ${env.TEMPORAL_ADDRESS}`);
// Outbound webhook outbox: starts deliveries whose start was lost (now, then every minute).
const sweeper = startDeliverySweeper({ db: database.db, engine });
// Schedules missed while Temporal was down at save time, or left by deleted workflows, are repaired
// in the background: the worker polls meanwhile, and a failure is logged, not fatal.
reconcileSchedules().then(
  (report) =>
    console.log(
      `[worker] trigger schedules reconciled: ${report.created.length} created, ${report.updated.length} updated, ` +
        `${report.paused.length} paused, ${report.deleted.length} deleted, ${report.failed.length} failed`,
    ),
  (error: unknown) => console.error('[worker] could not reconcile trigger schedules:', error),
);
await worker.run();
sweeper.stop();
await close();
await database.close();
