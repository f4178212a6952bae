/**
 * The saved graph (API shape) ⇄ the canvas's nodes and edges (Svelte Flow shape). Pure: the canvas
 * never owns the truth, and `fromCanvas(toCanvas(g))` gives back `g` exactly (fields absent stay
 * absent), so opening and saving a workflow changes nothing by itself.
 */

export interface SavedNode {
  id: string;
  type: string;
  /** The version of its type the node was built with; absent = 1. */
  type_version?: number;
  name?: string;
  config?: Record<string, unknown>;
  on_failure?: 'continue' | 'abort';
  /** Test runs use this instead of running the step (DESIGN §15); production runs ignore it. */
  pinned_output?: Record<string, unknown>;
  /** Skipped in every run: the step passes its input through. */
  disabled?: boolean;
  position?: { x: number; y: number };
}

export interface SavedEdge {
  id?: string;
  source: string;
  target: string;
  source_handle?: string | null;
}

export interface StepData extends Record<string, unknown> {
  /** The saved node, minus its position (which lives on the canvas node). */
  saved: Omit<SavedNode, 'position'>;
  /** No saved position: placed by the automatic layout, and saved only once moved or laid out. */
  unplaced: boolean;
}

export interface CanvasNode {
  id: string;
  type: 'step';
  position: { x: number; y: number };
  data: StepData;
  /** Classes on Svelte Flow's node wrapper (a pinned or disabled step's marker). */
  class?: string;
}

/** A sticky note as saved (`notes` of a workflow). */
export interface SavedNote {
  id: string;
  text: string;
  position: { x: number; y: number };
  width?: number;
  height?: number;
  color?: 'yellow' | 'blue' | 'green' | 'pink' | 'gray';
}

export interface CanvasNoteNode {
  id: string;
  type: 'note';
  position: { x: number; y: number };
  width: number;
  height: number;
  data: { note: Omit<SavedNote, 'position'> };
}

export const NOTE_SIZE = { width: 240, height: 140 };

/** Notes share the canvas with steps; their ids are prefixed so they never collide with a step's. */
export const noteNodeId = (noteId: string) => `note:${noteId}`;

export function notesToCanvas(notes: readonly SavedNote[]): CanvasNoteNode[] {
  return notes.map(({ position, ...note }) => ({
    id: noteNodeId(note.id),
    type: 'note',
    position: { ...position },
    width: note.width ?? NOTE_SIZE.width,
    height: note.height ?? NOTE_SIZE.height,
    data: { note },
  }));
}

export function notesFromCanvas(
  nodes: readonly { type?: string; position: { x: number; y: number } }[],
): SavedNote[] {
  return nodes
    .filter((n): n is CanvasNoteNode => n.type === 'note')
    .map((n) => ({ ...n.data.note, position: { x: n.position.x, y: n.position.y } }));
}

export interface CanvasEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string;
  label?: string;
  /** Drawn moving: the edge carried data in the run shown on the canvas. */
  animated?: boolean;
  data: { saved: SavedEdge };
}

/** A stable id for an edge saved without one. */
export const edgeKey = (edge: SavedEdge) => `${edge.source}->${edge.target}:${edge.source_handle ?? ''}`;

export function toCanvas(nodes: readonly SavedNode[], edges: readonly SavedEdge[]) {
  const canvasNodes: CanvasNode[] = nodes.map((node) => {
    const { position, ...saved } = node;
    return {
      id: node.id,
      type: 'step',
      position: position ? { ...position } : { x: 0, y: 0 },
      data: { saved, unplaced: position === undefined },
    };
  });
  const canvasEdges: CanvasEdge[] = edges.map((edge) => ({
    id: edge.id ?? edgeKey(edge),
    source: edge.source,
    target: edge.target,
    ...(edge.source_handle ? { sourceHandle: edge.source_handle, label: edge.source_handle } : {}),
    data: { saved: { ...edge } },
  }));
  return { nodes: canvasNodes, edges: canvasEdges, needsLayout: canvasNodes.some((n) => n.data.unplaced) };
}

export function fromCanvas(
  nodes: readonly { type: string }[],
  edges: readonly (CanvasEdge | { source: string; data: unknown })[],
) {
  return {
    nodes: (nodes as readonly (CanvasNode | { type: string })[])
      .filter((node): node is CanvasNode => node.type === 'step')
      .map((node): SavedNode => {
        const saved = { ...node.data.saved };
        return node.data.unplaced
          ? saved
          : { ...saved, position: { x: node.position.x, y: node.position.y } };
      }),
    // Only edges of the saved graph: the trigger's are drawn, not saved.
    edges: edges
      .filter((edge): edge is CanvasEdge => (edge as CanvasEdge).data?.saved !== undefined)
      .map((edge): SavedEdge => ({ ...edge.data.saved, source: edge.source, target: edge.target })),
  };
}

/** A node type's ports as GET /node-types describes them. */
export interface NodePorts {
  outputs: string[] | { from_config: string; plus: string[] };
}

/**
 * The named output handles a node draws: none for a single `main` output (one unnamed handle),
 * `true`/`false`, `each`/`done`, or a switch's case keys from its config plus `default`.
 */
export function outputHandles(
  ports: NodePorts | undefined,
  config: Record<string, unknown> | undefined,
): string[] {
  if (!ports) return [];
  if (Array.isArray(ports.outputs))
    return ports.outputs.length === 1 && ports.outputs[0] === 'main' ? [] : ports.outputs;
  const cases = Array.isArray(config?.cases) ? (config.cases as { key?: unknown }[]) : [];
  return [...cases.map((c) => String(c.key ?? '')).filter(Boolean), ...ports.outputs.plus];
}
