import dagre from '@dagrejs/dagre';
import type { CanvasEdge, CanvasNode } from './mapper';

/** n8n's tidy-up grid: positions land on multiples of 16 px. */
export const GRID = 16;
const DEFAULT_SIZE = { width: 248, height: 76 };

/**
 * Left-to-right layered layout (dagre) of the whole graph. Sizes come from the rendered nodes when
 * known (`measured`), else a default. Returns new node objects (every node placed); edges are
 * untouched. One call is one undoable edit for the editor.
 */
export function autoLayout(
  nodes: readonly (CanvasNode & { measured?: { width?: number; height?: number } })[],
  edges: readonly Pick<CanvasEdge, 'id' | 'source' | 'target'>[],
): CanvasNode[] {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 90, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) {
    graph.setNode(node.id, {
      width: node.measured?.width ?? DEFAULT_SIZE.width,
      height: node.measured?.height ?? DEFAULT_SIZE.height,
    });
  }
  for (const edge of edges) {
    if (graph.hasNode(edge.source) && graph.hasNode(edge.target))
      graph.setEdge(edge.source, edge.target, {}, edge.id);
  }
  dagre.layout(graph);
  const snap = (v: number) => Math.round(v / GRID) * GRID;
  return nodes.map((node) => {
    const placed = graph.node(node.id) as { x: number; y: number; width: number; height: number };
    // dagre answers centres; the canvas wants top-left corners.
    return {
      id: node.id,
      type: node.type,
      position: { x: snap(placed.x - placed.width / 2), y: snap(placed.y - placed.height / 2) },
      data: { ...node.data, unplaced: false },
    };
  });
}
