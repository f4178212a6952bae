import { ownCpuMs, processTreeCpuMs } from './process-cpu';
import {
  type MetricsScrape,
  scrapeTemporalMetrics,
  type TemporalServerCost,
  temporalServerCost,
} from './temporal-metrics';

/** What a scenario cost, per execution: CPU ms of each process, and the Temporal server's view. */
export interface ScenarioCost {
  cpuMsPerExecution: Record<string, number>;
  temporal: TemporalServerCost | null;
}

interface ProbeStart {
  cpu: Record<string, number>;
  metrics: MetricsScrape | undefined;
}

/**
 * Measures a scenario's cost: CPU time of each named process tree (from /proc) and of this process
 * (the load generator), and the Temporal server's metrics, read before and after it runs.
 */
export function createCostProbe(options: {
  /** Role name → pid (api, worker, temporal, postgres); a missing pid is left out. */
  processes: Record<string, number | undefined>;
  /** The Temporal server's Prometheus endpoint, when it has one. */
  metricsUrl?: string;
}) {
  const roles = Object.entries(options.processes).filter((e): e is [string, number] => e[1] !== undefined);
  const cpuNow = () => ({
    ...Object.fromEntries(roles.map(([role, pid]) => [role, processTreeCpuMs(pid)])),
    'load generator': ownCpuMs(),
  });
  const scrape = async (): Promise<MetricsScrape | undefined> =>
    options.metricsUrl ? scrapeTemporalMetrics(options.metricsUrl).catch(() => undefined) : undefined;

  return {
    async begin(): Promise<ProbeStart> {
      return { cpu: cpuNow(), metrics: await scrape() };
    },
    async end(start: ProbeStart, executions: number): Promise<ScenarioCost> {
      const cpu = cpuNow();
      const metrics = await scrape();
      const n = Math.max(1, executions);
      return {
        cpuMsPerExecution: Object.fromEntries(
          Object.entries(cpu).map(([role, ms]) => [
            role,
            Number(((ms - (start.cpu[role] ?? 0)) / n).toFixed(2)),
          ]),
        ),
        temporal: start.metrics && metrics ? temporalServerCost(start.metrics, metrics, executions) : null,
      };
    },
  };
}

export type CostProbe = ReturnType<typeof createCostProbe>;

/** One line per process: `worker 4.1 · temporal 6.3 · … ms CPU per execution`. */
export function describeCost(cost: ScenarioCost, perSecond?: number): string[] {
  const cpu = Object.entries(cost.cpuMsPerExecution)
    .map(([role, ms]) => `${role} ${ms.toFixed(1)}`)
    .join(' · ');
  // Our own processes (API and workers, however laid out) summed: the figure the targets name.
  const ours = Object.entries(cost.cpuMsPerExecution)
    .filter(([role]) => role.startsWith('api') || role.startsWith('worker'))
    .map(([, ms]) => ms);
  const oursLine = ours.length > 1 ? ` · API+workers ${ours.reduce((a, b) => a + b, 0).toFixed(1)}` : '';
  const lines = [`    CPU ms per execution: ${cpu}${oursLine}`];
  const t = cost.temporal;
  if (t) {
    const ops = t.topPersistenceOperations
      .map((o) => `${o.operation} ${o.perExecution}×${o.meanMs} ms`)
      .join(', ');
    lines.push(
      `    Temporal: ${t.persistenceRequestsPerExecution} persistence requests (${t.persistenceMsPerExecution} ms) per execution; top: ${ops}`,
    );
    const waits = t.historyTaskQueueWaitMs.map((w) => `${w.taskType} ${w.meanMs} ms`).join(', ');
    if (t.stateTransitionsPerExecution !== null) {
      const rate = perSecond ? `, ${(t.stateTransitionsPerExecution * perSecond).toFixed(0)}/s` : '';
      lines.push(`    Temporal: ${t.stateTransitionsPerExecution} state transitions per execution${rate}`);
    }
    lines.push(
      `    Temporal: sync match ${t.syncMatchRate === null ? '-' : `${(t.syncMatchRate * 100).toFixed(0)}%`}; history task queue wait: ${waits || '-'}`,
    );
  }
  return lines;
}
