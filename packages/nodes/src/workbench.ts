/**
 * What the workbench (DESIGN §15: pins, disabled steps, test runs, replay) needs to know about node
 * types, as plain data: it is read in workflow code (see runtime.ts).
 */

/**
 * Types whose run reaches outside Weft (HTTP, chat, e-mail, AI, event publish, child workflows) or
 * waits on the world (delay, wait for an event). A replay never runs them: it takes the original
 * execution's recorded output, or the pin, or the step fails with `replay_no_recording`.
 */
export const REPLAYED_NODE_TYPES: ReadonlySet<string> = new Set([
  'action.http_request',
  'action.email.send',
  'email_send',
  'action.chat.send',
  'action.chat.send_template',
  'action.ai.prompt',
  'action.event.publish',
  'action.workflow.execute',
  'action.delay',
  'action.wait_for_event',
]);

export function isReplayedInReplays(type: string): boolean {
  return REPLAYED_NODE_TYPES.has(type);
}

/**
 * The output handle a branching node fired, read back from an output it did not compute now (a
 * recording or a pin): a condition's `result`, a switch's `matched` case, a wait's outcome, a
 * loop's `done`. Undefined for single-output types (and for a pin that does not say).
 */
export function handleOfOutput(type: string, output: unknown): string | undefined {
  const value = typeof output === 'object' && output !== null ? (output as Record<string, unknown>) : {};
  switch (type) {
    case 'action.condition':
      return typeof value.result === 'boolean' ? String(value.result) : 'true';
    case 'action.switch':
      return typeof value.matched === 'string' ? value.matched : 'default';
    case 'action.wait_for_event':
      return value.timed_out === true ? 'timeout' : 'received';
    case 'action.loop':
      return 'done';
    default:
      return undefined;
  }
}

/**
 * The handle a disabled branching node fires when it passes its input through: its first or
 * fall-through output (condition `true`, switch `default`, loop `done`: the body does not run).
 */
export function disabledHandle(type: string): string | undefined {
  switch (type) {
    case 'action.condition':
      return 'true';
    case 'action.switch':
      return 'default';
    case 'action.wait_for_event':
      return 'received';
    case 'action.loop':
      return 'done';
    default:
      return undefined;
  }
}
