import type { WorkerEnv } from '@weft/config';
import type { Database } from '@weft/db';
import { parseAllowlist, startDeliverySweeper, startRetentionSweeper } from '@weft/domain';
import { getLogger, metrics } from '@weft/telemetry';
import { closeCodeSandbox } from '@weft/temporal/activities';
import { temporalConnectionOptions } from '@weft/temporal/connection';
import { watchTaskQueueBacklog } from '@weft/temporal/task-queue-metrics';
import { installTemporalRuntime } from './temporal-runtime';
import { createWorker } from './worker';

/**
 * Everything a worker process does besides polling: the worker itself, the outbound-webhook outbox
 * sweeper, the executions retention pruner and the schedule reconciliation at start. Used by the
 * worker's own process and by an API process that runs its worker in-process (`RUN_WORKER`, the
 * `weft up` default on one machine).
 * `done` settles once the worker has drained after SIGINT/SIGTERM (the SDK installs those handlers).
 * It installs the process's Temporal runtime first (logs through our logger, the SDK's metrics on
 * TEMPORAL_SDK_METRICS_PORT), so it runs once per process.
 */
export async function startWorkerRuntime(env: WorkerEnv & { TEMPORAL_ADDRESS: string }, db: Database) {
  const logger = getLogger('worker');
  const { metricsUrl } = installTemporalRuntime({
    logger: getLogger('temporal'),
    level: env.LOG_LEVEL,
    metricsBindAddress: env.TEMPORAL_SDK_METRICS_PORT
      ? `${env.METRICS_HOST}:${env.TEMPORAL_SDK_METRICS_PORT}`
      : undefined,
  });
  if (metricsUrl) logger.info({ url: metricsUrl }, 'Temporal SDK metrics served');
  const { worker, engine, connection, client, reconcileSchedules, close } = await createWorker({
    connection: temporalConnectionOptions(env, env.TEMPORAL_ADDRESS),
    namespace: env.TEMPORAL_NAMESPACE,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    db,
    ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
    chatCloudBaseUrl: env.CHAT_CLOUD_BASE_URL,
    chatGatewayBaseUrl: env.CHAT_GATEWAY_BASE_URL,
    chatGatewayContentBaseUrl: env.CHAT_GATEWAY_CONTENT_BASE_URL,
    siteUrl: env.APP_URL,
    appKey: env.APP_KEY,
    previousAppKeys: env.APP_KEYS_PREVIOUS,
    maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
    isolateTimeoutMs: env.WORKER_ISOLATE_TIMEOUT_MS,
    stackTraces: env.WORKER_STACK_TRACES,
    workflowThreads: env.WORKER_WORKFLOW_THREADS,
    outputInlineLimitBytes: env.OUTPUT_INLINE_LIMIT_BYTES,
    workflowBundle: env.WORKFLOW_BUNDLE_PATH ? { codePath: env.WORKFLOW_BUNDLE_PATH } : undefined,
  });
  logger.info(
    { task_queue: env.TEMPORAL_TASK_QUEUE, address: env.TEMPORAL_ADDRESS },
    `polling task queue "${env.TEMPORAL_TASK_QUEUE}" on ${env.TEMPORAL_ADDRESS}`,
  );
  // Outbound webhook outbox: starts deliveries whose start was lost (now, then every minute).
  const sweeper = startDeliverySweeper({
    db,
    engine,
    log: (message, error) => logger.warn({ component: 'webhooks', err: error }, message),
    onSwept: (count) => metrics.outboxUnstarted.set(count),
  });
  // The task queue's backlog for /metrics (workers too few or stuck: docs/alerts.md).
  const backlog = watchTaskQueueBacklog({
    client,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    log: (error) =>
      logger.debug({ component: 'metrics', err: error }, 'could not read the task queue backlog'),
  });
  // Retention (now, then every hour): finished executions and webhook deliveries older than
  // EXECUTION_RETENTION_DAYS, audit entries older than AUDIT_LOG_RETENTION_DAYS, stale poll keys.
  const pruner = startRetentionSweeper({
    db,
    retentionDays: env.EXECUTION_RETENTION_DAYS,
    auditLogRetentionDays: env.AUDIT_LOG_RETENTION_DAYS,
    log: (message, error) =>
      error
        ? logger.warn({ component: 'retention', err: error }, message)
        : logger.info({ component: 'retention' }, message),
  });
  // Schedules missed while Temporal was down at save time, or left by deleted workflows, are repaired
  // in the background: the worker polls meanwhile, and a failure is logged, not fatal.
  reconcileSchedules().then(
    (report) =>
      logger.info(
        {
          created: report.created.length,
          updated: report.updated.length,
          paused: report.paused.length,
          deleted: report.deleted.length,
          failed: report.failed.length,
        },
        'trigger schedules reconciled',
      ),
    (error: unknown) => logger.error({ err: error }, 'could not reconcile trigger schedules'),
  );
  const done = worker.run().finally(async () => {
    sweeper.stop();
    backlog.stop();
    await pruner.stop();
    await close();
    // After the worker drained: no activity is running code any more.
    await closeCodeSandbox();
  });
  return { engine, connection, done };
}
