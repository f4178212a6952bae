import type { useSvelteFlow } from '@xyflow/svelte';

/**
 * The fitted zoom never goes below this: the cards' 15–17 px text stays ≥ 12 px on screen. A graph
 * too wide for that opens at this zoom, from its first step (the trigger), as n8n opens big ones.
 */
export const FIT_MIN_ZOOM = 0.8;
const MARGIN = 48;
const PADDING = 0.2;

export const FIT_OPTIONS = { padding: PADDING, maxZoom: 1, minZoom: FIT_MIN_ZOOM } as const;

/**
 * The viewport that shows a graph readable in a `width` × `height` pane: the fitting zoom kept
 * between FIT_MIN_ZOOM and 1; centred when the graph fits at that zoom, else from its left edge.
 */
export function readableViewport(
  bounds: { x: number; y: number; width: number; height: number },
  width: number,
  height: number,
) {
  const fitting = Math.min(
    width / (bounds.width * (1 + 2 * PADDING) || 1),
    height / (bounds.height * (1 + 2 * PADDING) || 1),
  );
  const zoom = Math.min(1, Math.max(FIT_MIN_ZOOM, fitting));
  const drawnWidth = bounds.width * zoom;
  const x =
    drawnWidth + 2 * MARGIN <= width ? (width - drawnWidth) / 2 - bounds.x * zoom : MARGIN - bounds.x * zoom;
  const y = (height - bounds.height * zoom) / 2 - bounds.y * zoom;
  return { x, y, zoom };
}

/** Fits the graph on the canvas, readable (see readableViewport). */
export async function fitReadable(
  flow: ReturnType<typeof useSvelteFlow>,
  nodes: readonly { id: string }[],
  pane: { width: number; height: number },
) {
  if (nodes.length === 0 || pane.width === 0) {
    await flow.fitView(FIT_OPTIONS);
    return;
  }
  const bounds = flow.getNodesBounds(nodes.map((n) => n.id));
  await flow.setViewport(readableViewport(bounds, pane.width, pane.height));
}
