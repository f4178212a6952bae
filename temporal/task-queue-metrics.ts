import type { Client } from '@temporalio/client';
// The package is CommonJS: a default import works from Node's ESM loader and from the bundlers alike.
import proto from '@temporalio/proto';
import { metrics } from '@weft/telemetry';

const { TaskQueueType } = proto.temporal.api.enums.v1;
const TYPES = [
  { label: 'workflow', type: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW },
  { label: 'activity', type: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY },
] as const;

/**
 * Reads the backlog of `taskQueue` from Temporal (DescribeTaskQueue with stats: approximate count
 * and age of the oldest task, per task type) into weft_task_queue_backlog{,_age_seconds}.
 * Work waiting there means workers are too few or stuck: the alert that says so (docs/alerts.md).
 */
export async function refreshTaskQueueBacklog(client: Client, taskQueue: string): Promise<void> {
  await Promise.all(
    TYPES.map(async ({ label, type }) => {
      const { stats } = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: type,
        reportStats: true,
      });
      const labels = { task_queue: taskQueue, task_type: label };
      metrics.taskQueueBacklog.set(labels, Number(stats?.approximateBacklogCount ?? 0));
      const age = stats?.approximateBacklogAge;
      metrics.taskQueueBacklogAge.set(labels, Number(age?.seconds ?? 0) + (age?.nanos ?? 0) / 1e9);
    }),
  );
}

/** Refreshes the backlog now and every `intervalMs` (default 15 s, a scrape interval) until `stop()`. */
export function watchTaskQueueBacklog(options: {
  client: Client;
  taskQueue: string;
  intervalMs?: number;
  log?: (error: unknown) => void;
}): { stop(): void } {
  let running = false;
  const refresh = () => {
    if (running) return;
    running = true;
    refreshTaskQueueBacklog(options.client, options.taskQueue)
      .catch((error: unknown) => options.log?.(error))
      .finally(() => {
        running = false;
      });
  };
  refresh();
  const timer = setInterval(refresh, options.intervalMs ?? 15_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
