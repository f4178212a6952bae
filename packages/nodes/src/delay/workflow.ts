import { durationToMs } from '../shared/duration';
import { defineWorkflowNode } from '../workflow-node';

/** How long a delay node waits from `now`: its duration, or until its instant (0 when past). */
export function delayMs(config: { duration?: string; until?: unknown }, now: number): number {
  if (config.duration !== undefined) return durationToMs(config.duration);
  const until = Date.parse(String(config.until));
  if (Number.isNaN(until)) throw new Error(`"until" is not a valid date: ${String(config.until)}`);
  return Math.max(0, until - now);
}

/** action.delay: a durable Temporal timer, the execution `waiting` meanwhile. */
export const delayWorkflow = defineWorkflowNode({
  type: 'action.delay',
  runsIn: 'workflow',
  pauses: true,
  inReplay: 'recorded',
  async execute(config, ctx) {
    const ms = delayMs(config as { duration?: string; until?: unknown }, Date.now());
    await ctx.pause(() => ctx.sleep(ms));
    return { output: { resumed_at: new Date().toISOString() } };
  },
});
