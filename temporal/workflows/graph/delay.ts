import { sleep } from '@temporalio/workflow';
import type { GraphNode } from '@weft/graph/runtime';
import { delayMs } from '@weft/nodes/runtime';
import type { GraphRun } from './state';

/** action.delay: a durable Temporal timer, the execution `waiting` meanwhile. */
export async function runDelay(
  run: GraphRun,
  node: GraphNode,
  iteration: number,
  config: Record<string, unknown>,
) {
  const ms = delayMs(config as { duration?: string; until?: unknown }, Date.now());
  await run.pauseWithStatus(node, iteration, config, () => sleep(ms));
  return { output: { resumed_at: new Date().toISOString() } };
}
