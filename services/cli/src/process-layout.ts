import type { ServiceName } from './service-bundle';

/**
 * How `weft up` (and the benches) lay the stack out in Node processes.
 * - `combined` (default on one machine): one process serves web+API and runs the Temporal worker, so
 *   executions start eagerly on that worker (no trip through Temporal's matching) and one V8 heap
 *   is paid instead of two.
 * - `split`: an API process and a worker process, as production runs them (and scales each).
 */
export type ProcessLayout = 'combined' | 'split';

export interface LayoutService {
  /** `api+worker`, `api` or `worker`: the role names the benches report CPU and memory under. */
  role: 'api+worker' | 'api' | 'worker';
  /** The process it runs: its entry is `serviceBundles()[service]`. */
  service: ServiceName;
  env: Record<string, string>;
  nodeArgs: string[];
}

/**
 * The processes of a layout. `heapMb` caps V8's old space of each isolate (the API's and the
 * workflow thread's): without a cap V8 grows the heap long before it collects, and a process that
 * has run a few thousand executions sat at ~510 MiB with 1,000 more waiting; with 256 MB it held
 * ~330 MiB at the same throughput (`weft bench engine`). 0 leaves Node's default.
 *
 * The young generation gets 32 MB semi-spaces (Node's default is 16 MB): an execution allocates
 * short-lived request, payload and query objects, and with the default V8 scavenged and promoted
 * them often enough to cost ~1 ms of CPU per execution (`weft bench engine` (b) at concurrency 16:
 * 10.2 → 9.3 ms for API+worker; resident memory did not grow).
 */
const YOUNG_GENERATION = '--max-semi-space-size=32';

export function layoutServices(layout: ProcessLayout, heapMb: number): LayoutService[] {
  const nodeArgs = [...(heapMb > 0 ? [`--max-old-space-size=${heapMb}`] : []), YOUNG_GENERATION];
  return layout === 'combined'
    ? [{ role: 'api+worker', service: 'api', env: { RUN_WORKER: 'true' }, nodeArgs }]
    : [
        { role: 'worker', service: 'worker', env: { RUN_WORKER: 'false' }, nodeArgs },
        { role: 'api', service: 'api', env: { RUN_WORKER: 'false' }, nodeArgs },
      ];
}
