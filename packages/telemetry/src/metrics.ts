import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's one metrics registry. API and worker each fill it with what happens in them; when
 * both run in one process (`weft up`'s combined layout) they share it, and one /metrics shows all.
 * Labels are closed sets (route patterns, node types, statuses): never paths or user input, which
 * would make a time series per value. One exception, asked for by on-call: finished executions per
 * organization and workflow id (a series per workflow and final status; docs/alerts.md).
 */
export const registry = new Registry();

/** Seconds: most requests take milliseconds; slow ones (bulk publishes, cold starts) seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: pure nodes take microseconds, HTTP and AI calls seconds, delays and waits hours or days. */
const STEP_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400];

export const metrics = {
  httpRequests: new Counter({
    name: 'weft_http_requests_total',
    help: 'HTTP requests answered by the API, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpRequestDuration: new Histogram({
    name: 'weft_http_request_duration_seconds',
    help: 'Time from receiving an API request to its response headers, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  }),
  executionsStarted: new Counter({
    name: 'weft_executions_started_total',
    help: 'Executions whose run began on a worker, by trigger (api, manual, event, webhook, chat, schedule, polling, workflow).',
    labelNames: ['trigger'] as const,
    registers: [registry],
  }),
  executionsFinished: new Counter({
    name: 'weft_executions_finished_total',
    help: 'Executions that reached a final status (success, partial, failed, cancelled); a retried execution counts again when it ends again.',
    labelNames: ['status'] as const,
    registers: [registry],
  }),
  stepDuration: new Histogram({
    name: 'weft_step_duration_seconds',
    help: 'Duration of finished steps, by node type and outcome (completed, failed).',
    labelNames: ['node_type', 'outcome'] as const,
    buckets: STEP_BUCKETS,
    registers: [registry],
  }),
  chatInboundUnreadable: new Counter({
    name: 'weft_chat_inbound_unreadable_total',
    help: 'Inbound chat messages answered 200 but not read (also logged, number masked), by provider (cloud, gateway) and reason (sender: not an E.164 number; incomplete: no message id or body).',
    labelNames: ['provider', 'reason'] as const,
    registers: [registry],
  }),
  workflowExecutionsFinished: new Counter({
    name: 'weft_workflow_executions_finished_total',
    help: 'Executions that reached a final status, by organization id, workflow id and status (which workflow of which tenant fails).',
    labelNames: ['organization_id', 'workflow_id', 'status'] as const,
    registers: [registry],
  }),
  scheduleLag: new Histogram({
    name: 'weft_schedule_lag_seconds',
    help: "Time from a schedule fire's scheduled time to its execution being recorded by a worker.",
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  }),
  outboxUnstarted: new Gauge({
    name: 'weft_webhook_outbox_unstarted',
    help: 'Outbound webhook deliveries committed over a minute ago whose delivery never started, as the last sweep found them (at most 500 a sweep).',
    registers: [registry],
  }),
  taskQueueBacklog: new Gauge({
    name: 'weft_task_queue_backlog',
    help: "Tasks waiting in this worker's Temporal task queue (approximate, from the server), by task type (workflow, activity).",
    labelNames: ['task_queue', 'task_type'] as const,
    registers: [registry],
  }),
  taskQueueBacklogAge: new Gauge({
    name: 'weft_task_queue_backlog_age_seconds',
    help: "Age of the oldest task waiting in this worker's Temporal task queue, by task type.",
    labelNames: ['task_queue', 'task_type'] as const,
    registers: [registry],
  }),
  dbPoolBusy: new Gauge({
    name: 'weft_db_pool_busy_connections',
    help: "Connections of this process's PostgreSQL pool running a query, as sampled every 15 s.",
    registers: [registry],
  }),
  dbPoolOpen: new Gauge({
    name: 'weft_db_pool_open_connections',
    help: "Connections of this process's PostgreSQL pool open, as sampled every 15 s.",
    registers: [registry],
  }),
  dbPoolMax: new Gauge({
    name: 'weft_db_pool_max_connections',
    help: "Size of this process's PostgreSQL pool (DATABASE_POOL_SIZE).",
    registers: [registry],
  }),
  webhookDeliveries: new Counter({
    name: 'weft_webhook_deliveries_total',
    help: 'Outbound webhook delivery attempts, by outcome (delivered, retry, failed, skipped).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
};

let defaultsOn = false;

/**
 * Adds Node's process metrics (CPU, resident memory, heap, event-loop lag, GC) to the registry.
 * Once per process; later calls do nothing (prom-client refuses a second registration).
 */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}

/** The registry in Prometheus' text exposition format, with its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/**
 * Samples a PostgreSQL pool's use into weft_db_pool_* now and every `intervalMs` (default 15 s, a
 * scrape interval) until `stop()`. `read` is the pool's own probe (DatabaseHandle.poolUse).
 */
export function watchDatabasePool(
  read: () => Promise<{ busy: number; open: number; max: number }>,
  options: { intervalMs?: number; log?: (error: unknown) => void } = {},
): { stop(): void } {
  let running = false;
  const sample = () => {
    if (running) return;
    running = true;
    read()
      .then((use) => {
        metrics.dbPoolBusy.set(use.busy);
        metrics.dbPoolOpen.set(use.open);
        metrics.dbPoolMax.set(use.max);
      })
      .catch((error: unknown) => options.log?.(error))
      .finally(() => {
        running = false;
      });
  };
  sample();
  const timer = setInterval(sample, options.intervalMs ?? 15_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
