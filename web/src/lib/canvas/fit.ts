import type { useSvelteFlow } from '@xyflow/svelte';

/**
 * The fitted zoom never goes below this: the cards' 15–17 px text stays ≥ 12 px on screen. A graph
 * too wide for that opens at this zoom, from its first step (the trigger), as n8n opens big ones.
 */
export const FIT_MIN_ZOOM = 0.8;
const MARGIN = 48;

export const FIT_OPTIONS = { padding: 0.2, maxZoom: 1, minZoom: FIT_MIN_ZOOM } as const;

/** Fits the graph, readable: if the zoom was clamped, the leftmost node goes to the left edge. */
export async function fitReadable(
  flow: ReturnType<typeof useSvelteFlow>,
  nodes: readonly { position: { x: number; y: number } }[],
) {
  await flow.fitView(FIT_OPTIONS);
  const viewport = flow.getViewport();
  if (viewport.zoom > FIT_MIN_ZOOM + 0.001 || nodes.length === 0) return;
  const left = Math.min(...nodes.map((n) => n.position.x));
  // Clamped but it still fits (only the padding shrank): it stays centred.
  if (viewport.x + left * viewport.zoom >= 0) return;
  await flow.setViewport({ ...viewport, x: MARGIN - left * viewport.zoom });
}
