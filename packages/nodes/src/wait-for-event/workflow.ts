import { durationToMs } from '../shared/duration';
import { defineWorkflowNode, type ReceivedEvent } from '../workflow-node';

interface RenderedWaitConfig {
  event: string;
  match?: { field: string; equals: unknown };
  timeout: string;
}

/** An own-property dotted path of an event payload (prototype keys never followed). */
function readField(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (key === '__proto__' || key === 'prototype' || key === 'constructor') return undefined;
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** action.wait_for_event: pauses until a matching event is signalled (`received`) or the timeout (`timeout`). */
export const waitForEventWorkflow = defineWorkflowNode({
  type: 'action.wait_for_event',
  runsIn: 'workflow',
  pauses: true,
  inReplay: 'recorded',
  handleOf: (output) => (output.timed_out === true ? 'timeout' : 'received'),
  disabledHandle: 'received',
  async execute(config, ctx) {
    const wait = config as unknown as RenderedWaitConfig;
    const matches = (e: ReceivedEvent) =>
      e.event === wait.event &&
      (!wait.match || String(readField(e.payload, wait.match.field)) === String(wait.match.equals));
    // The waiting step is saved before the pause; publishers find it there and signal this run.
    // Signals are buffered, so an event arriving between the save and the wait is not lost.
    let received: ReceivedEvent | undefined;
    await ctx.pause(async () => {
      await ctx.waitUntil(() => {
        received = ctx.receivedEvents.find(matches);
        return received !== undefined;
      }, durationToMs(wait.timeout));
    });
    return received
      ? { output: { timed_out: false, event: received.payload }, handle: 'received' }
      : { output: { timed_out: true, event: null }, handle: 'timeout' };
  },
});
