/**
 * How an execution's start is said in lists and on its page: "Test run", "Event · cart.abandoned",
 * "Schedule", … rather than the API's codes. Reads `mode` when the API gives it (test runs are
 * `mode: test`).
 */
const TRIGGERS: Record<string, string> = {
  api: 'API',
  manual: 'Manual run',
  event: 'Event',
  schedule: 'Schedule',
  webhook: 'Webhook',
  polling: 'Polling',
  chat: 'Chat message',
  workflow: 'Another workflow',
  retry: 'Retry',
  replay: 'Replay',
};

export function triggerLabel(execution: { trigger: string; event?: string | null; mode?: unknown }): string {
  const base = execution.mode === 'test' ? 'Test run' : (TRIGGERS[execution.trigger] ?? execution.trigger);
  return execution.event ? `${base} · ${execution.event}` : base;
}
