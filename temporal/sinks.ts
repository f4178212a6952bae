import type { InjectedSinks } from '@temporalio/worker';
import { metrics } from '@weft/telemetry';
import type { WeftSinks } from './shared';

/**
 * The worker's side of the workflow sinks (shared.ts): counters the interpreter moves from inside
 * the workflow sandbox. Not called during replay, so an execution replayed after a cache eviction
 * or a worker restart is not counted twice.
 */
export function createMetricsSinks(): InjectedSinks<WeftSinks> {
  return {
    metrics: {
      executionStarted: {
        fn: (_info, trigger) => metrics.executionsStarted.inc({ trigger }),
        callDuringReplay: false,
      },
    },
  };
}
