/** Counter values and histogram sums/counts of one scrape, keyed `name|label=value,...`. */
export type MetricsScrape = Map<string, number>;

/** Labels that name what happened; the rest (namespace, service, task queue) are summed over. */
const KEPT_LABELS = ['operation', 'service_name', 'task_type'];

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Reads the samples of a Prometheus text exposition that a bench needs (plain samples: counters,
 * and histograms' `_sum`/`_count`). Written here because the npm parser tried first
 * (parse-prometheus-text-format 1.1.1) merges every labelled series of a histogram into one.
 */
export function parsePrometheusSamples(text: string): MetricsScrape {
  const scrape: MetricsScrape = new Map();
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith('#')) continue;
    const [, name = '', labelText = '', valueText = ''] = match;
    if (name.endsWith('_bucket')) continue;
    const value = Number(valueText);
    if (!Number.isFinite(value)) continue;
    const labels = new Map([...labelText.matchAll(LABEL)].map((m) => [m[1], m[2]]));
    const kept = KEPT_LABELS.filter((l) => labels.has(l)).map((l) => `${l}=${labels.get(l)}`);
    const key = `${name}|${kept.join(',')}`;
    scrape.set(key, (scrape.get(key) ?? 0) + value);
  }
  return scrape;
}

/** Scrapes the Temporal server's Prometheus endpoint (`--metrics-port`). */
export async function scrapeTemporalMetrics(url: string): Promise<MetricsScrape> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return parsePrometheusSamples(await res.text());
}

function delta(before: MetricsScrape, after: MetricsScrape): MetricsScrape {
  const out: MetricsScrape = new Map();
  for (const [key, value] of after) out.set(key, value - (before.get(key) ?? 0));
  return out;
}

function byLabel(d: MetricsScrape, name: string, label: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of d) {
    const [metric, labels = ''] = key.split('|');
    if (metric !== name) continue;
    const found = labels.split(',').find((l) => l.startsWith(`${label}=`));
    const which = found ? found.slice(label.length + 1) : '';
    out.set(which, (out.get(which) ?? 0) + value);
  }
  return out;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** What the Temporal server did for a scenario, per execution: where its own time went. */
export interface TemporalServerCost {
  persistenceRequestsPerExecution: number;
  persistenceMsPerExecution: number;
  /** The persistence operations that took the most time, with their count and mean latency. */
  topPersistenceOperations: { operation: string; perExecution: number; meanMs: number }[];
  /**
   * Mutable-state transitions (Temporal's `state_transition_count`), the unit Temporal's own
   * throughput figures are quoted in; null when the server does not report it.
   */
  stateTransitionsPerExecution: number | null;
  /** Tasks handed straight to a waiting poller instead of being written to and read back from the store. */
  syncMatchRate: number | null;
  /** Mean time history tasks (transfer, timer, visibility) waited in their queue before processing, ms. */
  historyTaskQueueWaitMs: { taskType: string; meanMs: number }[];
}

/** Summarizes the difference of two scrapes taken around a scenario of `executions` workflows. */
export function temporalServerCost(
  before: MetricsScrape,
  after: MetricsScrape,
  executions: number,
): TemporalServerCost {
  const d = delta(before, after);
  const per = (n: number) => round(n / Math.max(1, executions));
  const requests = byLabel(d, 'persistence_requests', 'operation');
  const latencySum = byLabel(d, 'persistence_latency_sum', 'operation');
  const latencyCount = byLabel(d, 'persistence_latency_count', 'operation');
  const topPersistenceOperations = [...latencySum.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .filter(([, seconds]) => seconds > 0)
    .map(([operation, seconds]) => ({
      operation,
      perExecution: per(requests.get(operation) ?? latencyCount.get(operation) ?? 0),
      meanMs: round((seconds * 1000) / Math.max(1, latencyCount.get(operation) ?? 0)),
    }));
  const polls = total(byLabel(d, 'poll_success', 'operation'));
  const syncPolls = total(byLabel(d, 'poll_success_sync', 'operation'));
  const queueSum = byLabel(d, 'task_latency_queue_sum', 'task_type');
  const queueCount = byLabel(d, 'task_latency_queue_count', 'task_type');
  const transitions = byLabel(d, 'state_transition_count_sum', 'operation');
  return {
    stateTransitionsPerExecution: transitions.size > 0 ? per(total(transitions)) : null,
    persistenceRequestsPerExecution: per(total(requests)),
    persistenceMsPerExecution: per(total(latencySum) * 1000),
    topPersistenceOperations,
    syncMatchRate: polls > 0 ? round(syncPolls / polls, 3) : null,
    historyTaskQueueWaitMs: [...queueSum.entries()]
      .filter(([, seconds]) => seconds > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([taskType, seconds]) => ({
        taskType,
        meanMs: round((seconds * 1000) / Math.max(1, queueCount.get(taskType) ?? 0)),
      })),
  };
}
