import type { SavedEdge, SavedNode } from '../canvas/mapper';

/**
 * Pure edits of a saved graph, used by the editor and unit-tested: new ids, copy/paste fragments,
 * connecting without cycles, and the API's 422 fields mapped onto nodes.
 */
export interface Graph {
  nodes: SavedNode[];
  edges: SavedEdge[];
}

/** `action.http_request` → `http_request`, then `http_request_2`, … never an id already taken. */
export function uniqueNodeId(type: string, taken: ReadonlySet<string>): string {
  const base =
    (type.split('.').slice(1).join('_') || type).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 56) || 'node';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

export const FRAGMENT_KIND = 'weft/nodes';

/** What the clipboard holds: the selected nodes and the edges between them, as JSON text. */
export interface Fragment {
  kind: typeof FRAGMENT_KIND;
  nodes: SavedNode[];
  edges: SavedEdge[];
}

export function copyFragment(graph: Graph, ids: ReadonlySet<string>): Fragment {
  return {
    kind: FRAGMENT_KIND,
    nodes: graph.nodes.filter((n) => ids.has(n.id)).map((n) => structuredClone(n)),
    edges: graph.edges
      .filter((e) => ids.has(e.source) && ids.has(e.target))
      .map(({ id: _id, ...edge }) => ({ ...edge })),
  };
}

/** A fragment from clipboard text, or null for anything else (plain text pasted into the page). */
export function parseFragment(text: string): Fragment | null {
  try {
    const value = JSON.parse(text) as Partial<Fragment>;
    if (value?.kind !== FRAGMENT_KIND || !Array.isArray(value.nodes) || !Array.isArray(value.edges))
      return null;
    const valid = value.nodes.every(
      (n) =>
        typeof n?.id === 'string' &&
        typeof n.type === 'string' &&
        (n.config === undefined || typeof n.config === 'object'),
    );
    return valid ? (value as Fragment) : null;
  } catch {
    return null;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rewrites `nodes.<old>` references inside a config (any depth) to the renamed ids. */
function renameReferences(value: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') {
    let text = value;
    for (const [from, to] of renames) {
      text = text.replace(new RegExp(`(\\bnodes\\.)${escapeRegExp(from)}(?![A-Za-z0-9_-])`, 'g'), `$1${to}`);
    }
    return text;
  }
  if (Array.isArray(value)) return value.map((v) => renameReferences(v, renames));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renameReferences(v, renames)]));
  }
  return value;
}

/**
 * Adds a fragment to a graph: every node gets an id not yet taken (references between the pasted
 * nodes follow), and lands `offset` away from where it was copied, so a paste never hides its source.
 */
export function pasteFragment(graph: Graph, fragment: Fragment, offset = { x: 48, y: 48 }) {
  const taken = new Set(graph.nodes.map((n) => n.id));
  const renames = new Map<string, string>();
  for (const node of fragment.nodes) {
    const id = taken.has(node.id) ? uniqueNodeId(node.type, taken) : node.id;
    taken.add(id);
    renames.set(node.id, id);
  }
  const nodes = fragment.nodes.map((node) => ({
    ...node,
    id: renames.get(node.id) ?? node.id,
    config: renameReferences(node.config ?? {}, renames) as Record<string, unknown>,
    position: { x: (node.position?.x ?? 0) + offset.x, y: (node.position?.y ?? 0) + offset.y },
  }));
  const edges = fragment.edges.flatMap((edge) => {
    const source = renames.get(edge.source);
    const target = renames.get(edge.target);
    return source && target
      ? [{ source, target, ...(edge.source_handle ? { source_handle: edge.source_handle } : {}) }]
      : [];
  });
  return {
    graph: { nodes: [...graph.nodes, ...nodes], edges: [...graph.edges, ...edges] },
    added: nodes.map((n) => n.id),
  };
}

export function removeElements(
  graph: Graph,
  nodeIds: ReadonlySet<string>,
  edgeKeys: ReadonlySet<string>,
  keyOf: (e: SavedEdge) => string,
): Graph {
  return {
    nodes: graph.nodes.filter((n) => !nodeIds.has(n.id)),
    edges: graph.edges.filter(
      (e) => !nodeIds.has(e.source) && !nodeIds.has(e.target) && !edgeKeys.has(keyOf(e)),
    ),
  };
}

/** Why an edge cannot be drawn, or null when it can: the API refuses cycles and duplicate edges. */
export function connectionProblem(
  graph: Graph,
  source: string,
  target: string,
  handle?: string | null,
): string | null {
  if (source === target) return 'A step cannot connect to itself.';
  if (
    graph.edges.some(
      (e) => e.source === source && e.target === target && (e.source_handle ?? null) === (handle ?? null),
    )
  ) {
    return 'These steps are already connected.';
  }
  // A path target → … → source would close a cycle.
  const outgoing = new Map<string, string[]>();
  for (const e of graph.edges) outgoing.set(e.source, [...(outgoing.get(e.source) ?? []), e.target]);
  const stack = [target];
  const seen = new Set<string>();
  while (stack.length) {
    const id = stack.pop() as string;
    if (id === source) return 'This connection would make a loop; use a Loop step to repeat work.';
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(outgoing.get(id) ?? []));
  }
  return null;
}

/**
 * The API's 422 `fields` (`nodes.2.config.url`, `edges.0.target`, `trigger_config.cron`) split into
 * per-node messages keyed by the field path inside the node (`config.url`), and the rest.
 */
export function fieldErrorsByNode(fields: Record<string, string[]>, nodes: readonly SavedNode[]) {
  const byNode = new Map<string, Record<string, string[]>>();
  const other: Record<string, string[]> = {};
  for (const [path, messages] of Object.entries(fields)) {
    const match = /^nodes\.(\d+)(?:\.(.+))?$/.exec(path);
    const node = match ? nodes[Number(match[1])] : undefined;
    if (!match || !node) {
      other[path] = messages;
      continue;
    }
    const inner = byNode.get(node.id) ?? {};
    const key = match[2] ?? '_';
    inner[key] = [...(inner[key] ?? []), ...messages];
    byNode.set(node.id, inner);
  }
  return { byNode, other };
}
