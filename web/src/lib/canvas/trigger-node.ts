import type { CanvasEdge, CanvasNode } from './mapper';

/**
 * The trigger drawn as the first step of the canvas (as n8n draws it): a node that is not saved
 * with the graph (the trigger lives in `trigger_type` / `trigger_config`), placed left of the
 * steps nothing leads into, with an edge to each of them. Its id cannot be a step's id.
 */
export const TRIGGER_NODE_ID = '@trigger';
const COLUMN = 288;

export interface TriggerData extends Record<string, unknown> {
  triggerType: string;
  /** What starts it, in a few words: the event, the cron, … */
  detail: string;
}

export interface CanvasTriggerNode {
  id: typeof TRIGGER_NODE_ID;
  type: 'trigger';
  position: { x: number; y: number };
  data: TriggerData;
  deletable: false;
  draggable: false;
  connectable: false;
  selected?: boolean;
}

export interface CanvasTriggerEdge {
  id: string;
  source: typeof TRIGGER_NODE_ID;
  target: string;
  sourceHandle?: undefined;
  animated?: boolean;
  deletable: false;
  selectable: false;
  focusable: false;
  class: 'trigger-edge';
  data: { trigger: true };
}

export function triggerDetail(type: string, config: Record<string, unknown>): string {
  if (type === 'event' && typeof config.event === 'string') return config.event;
  if ((type === 'schedule' || type === 'polling') && typeof config.cron === 'string') return config.cron;
  if (type === 'polling' && typeof config.interval_minutes === 'number')
    return `every ${config.interval_minutes} min`;
  return '';
}

/** The trigger node and its edges for these steps: left of the first root, linked to every root. */
export function triggerOnCanvas(
  steps: readonly CanvasNode[],
  edges: readonly { source: string; target: string }[],
  data: TriggerData,
): { node: CanvasTriggerNode; edges: CanvasTriggerEdge[] } {
  const led = new Set(edges.filter((e) => e.source !== TRIGGER_NODE_ID).map((e) => e.target));
  const roots = steps.filter((s) => !led.has(s.id));
  const first = [...roots].sort((a, b) => a.position.x - b.position.x || a.position.y - b.position.y)[0];
  const position = first ? { x: first.position.x - COLUMN, y: first.position.y } : { x: 0, y: 0 };
  return {
    node: {
      id: TRIGGER_NODE_ID,
      type: 'trigger',
      position,
      data,
      deletable: false,
      draggable: false,
      connectable: false,
    },
    edges: roots.map((root) => ({
      id: `${TRIGGER_NODE_ID}->${root.id}`,
      source: TRIGGER_NODE_ID,
      target: root.id,
      deletable: false,
      selectable: false,
      focusable: false,
      class: 'trigger-edge',
      data: { trigger: true },
    })),
  };
}

/** The saved graph's edges only (the trigger's are drawn, never saved). */
export const withoutTriggerEdges = <E extends { source: string }>(edges: readonly E[]): E[] =>
  edges.filter((e) => e.source !== TRIGGER_NODE_ID);

export type AnyCanvasEdge = CanvasEdge | CanvasTriggerEdge;
