/**
 * The classes Svelte Flow puts on a step's wrapper so the canvas marks a pinned or a disabled step
 * (markers.css draws them): the card component stays unaware of the build loop.
 */
export function stepMarkers(saved: { pinned_output?: object; disabled?: boolean }): string | undefined {
  const classes = [saved.pinned_output ? 'step-pinned' : '', saved.disabled ? 'step-disabled' : ''];
  return classes.filter(Boolean).join(' ') || undefined;
}

/** Typed JSON for a pin: an object, or a message a person can act on. */
export function parsePinned(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `This is not valid JSON: ${(error as Error).message}.` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { error: 'A pinned output must be a JSON object, like {"status": 200, "body": {}}.' };
  return { value: value as Record<string, unknown> };
}

/** A run's output of a step, when it can be pinned (pins are objects, DESIGN §15). */
export function pinnable(output: unknown): Record<string, unknown> | undefined {
  return output !== null && typeof output === 'object' && !Array.isArray(output)
    ? (output as Record<string, unknown>)
    : undefined;
}

/** How much of the workflow a step's run button runs: only it, up to it, or from it on. */
export type RunScope = 'only' | 'upto' | 'from';

/** The body of POST /workflows/{id}/test for a step's run button (DESIGN §15). */
export function testRunScope(scope: RunScope, nodeId: string): { start_at?: string; stop_after?: string } {
  if (scope === 'only') return { start_at: nodeId, stop_after: nodeId };
  return scope === 'upto' ? { stop_after: nodeId } : { start_at: nodeId };
}
