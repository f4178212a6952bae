import path from 'node:path';
import { PROJECT_ROOT } from './project';

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
  entry: string;
  env: Record<string, string>;
}

export function layoutServices(layout: ProcessLayout): LayoutService[] {
  const api = path.join(PROJECT_ROOT, 'services/api/src/main.ts');
  const worker = path.join(PROJECT_ROOT, 'services/worker/src/main.ts');
  return layout === 'combined'
    ? [{ role: 'api+worker', entry: api, env: { RUN_WORKER: 'true' } }]
    : [
        { role: 'worker', entry: worker, env: { RUN_WORKER: 'false' } },
        { role: 'api', entry: api, env: { RUN_WORKER: 'false' } },
      ];
}
