import type { WorkerEnv } from '@weft/config';
import type { Database } from '@weft/db';
import { parseAllowlist, startDeliverySweeper } from '@weft/services';
import { createWorker } from './worker';

/**
 * Everything a worker process does besides polling: the worker itself, the outbound-webhook outbox
 * sweeper and the schedule reconciliation at start. Used by the worker's own process and by an API
 * process that runs its worker in-process (`RUN_WORKER`, the `weft up` default on one machine).
 * `done` settles once the worker has drained after SIGINT/SIGTERM (the SDK installs those handlers).
 */
export async function startWorkerRuntime(env: WorkerEnv & { TEMPORAL_ADDRESS: string }, db: Database) {
  const { worker, engine, connection, reconcileSchedules, close } = await createWorker({
    address: env.TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    db,
    ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
    chatCloudBaseUrl: env.CHAT_CLOUD_BASE_URL,
    chatGatewayBaseUrl: env.CHAT_GATEWAY_BASE_URL,
    chatGatewayContentBaseUrl: env.CHAT_GATEWAY_CONTENT_BASE_URL,
    appKey: env.APP_KEY,
    maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
    isolateTimeoutMs: env.WORKER_ISOLATE_TIMEOUT_MS,
    outputInlineLimitBytes: env.OUTPUT_INLINE_LIMIT_BYTES,
    workflowBundle: env.WORKFLOW_BUNDLE_PATH ? { codePath: env.WORKFLOW_BUNDLE_PATH } : undefined,
  });
  console.log(`[worker] polling task queue "${env.TEMPORAL_TASK_QUEUE}" on ${env.TEMPORAL_ADDRESS}`);
  // Outbound webhook outbox: starts deliveries whose start was lost (now, then every minute).
  const sweeper = startDeliverySweeper({ db, engine });
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
  const done = worker.run().finally(async () => {
    sweeper.stop();
    await close();
  });
  return { engine, connection, done };
}
