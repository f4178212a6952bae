import type { GraphEdge, GraphNode } from './schema';

/**
 * The walking rules of a graph (DESIGN §3), as pure functions over a precomputed plan: the
 * interpreter uses them inside workflow code, and the canvas can use them to show what would run.
 * Free of zod on purpose (see runtime.ts).
 */
export interface GraphPlan {
  byId: Map<string, GraphNode>;
  incoming: Map<string, GraphEdge[]>;
  outgoing: Map<string, GraphEdge[]>;
  /** For each loop node: the nodes reachable from its `each` handle, which run once per item. */
  loopBodies: Map<string, Set<string>>;
  /** The nodes outside every loop body, walked once per execution. */
  mainNodes: Set<string>;
  /** Main nodes without incoming edges: where the walk starts. */
  roots: Set<string>;
}

export const LOOP_EACH_HANDLE = 'each';

/**
 * The plan of a graph. `isLoop` says which nodes walk the nodes on their `each` handle once per
 * item (the node types know: @weft/nodes, `loop` in a type's workflow.ts).
 */
export function planGraph(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  isLoop: (node: GraphNode) => boolean,
): GraphPlan {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const incoming = new Map<string, GraphEdge[]>(nodes.map((n) => [n.id, []]));
  const outgoing = new Map<string, GraphEdge[]>(nodes.map((n) => [n.id, []]));
  for (const edge of edges) {
    incoming.get(edge.target)?.push(edge);
    outgoing.get(edge.source)?.push(edge);
  }
  const loopBodies = new Map<string, Set<string>>();
  for (const node of nodes) {
    if (!isLoop(node)) continue;
    const body = new Set<string>();
    const stack = loopEntries({ outgoing }, node.id);
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (body.has(id)) continue;
      body.add(id);
      for (const e of outgoing.get(id) ?? []) stack.push(e.target);
    }
    loopBodies.set(node.id, body);
  }
  const inSomeBody = new Set([...loopBodies.values()].flatMap((b) => [...b]));
  const mainNodes = new Set(nodes.filter((n) => !inSomeBody.has(n.id)).map((n) => n.id));
  const roots = new Set([...mainNodes].filter((id) => (incoming.get(id) ?? []).length === 0));
  return { byId, incoming, outgoing, loopBodies, mainNodes, roots };
}

/** The first nodes of a loop's body: the targets of its `each` handle. */
export function loopEntries(plan: Pick<GraphPlan, 'outgoing'>, loopId: string): string[] {
  return (plan.outgoing.get(loopId) ?? [])
    .filter((e) => e.source_handle === LOOP_EACH_HANDLE)
    .map((e) => e.target);
}

/**
 * The nodes of `scope` that can settle now: not settled yet, and every incoming edge comes from a
 * settled node or from outside the scope (a node outside that did not fire into it, e.g. the
 * main graph seen from a loop body, never will).
 */
export function readyNodes(
  plan: Pick<GraphPlan, 'incoming'>,
  scope: ReadonlySet<string>,
  settled: ReadonlySet<string>,
  fired: Readonly<Record<string, string | undefined>>,
): string[] {
  return [...scope].filter(
    (id) =>
      !settled.has(id) &&
      (plan.incoming.get(id) ?? []).every(
        (e) => settled.has(e.source) || (!scope.has(e.source) && !(e.source in fired)),
      ),
  );
}

/**
 * The incoming edges of a ready node that carry data: their source ran and fired that edge's
 * handle. A ready node with none (and not an entry) is skipped.
 */
export function liveEdges(
  plan: Pick<GraphPlan, 'incoming'>,
  nodeId: string,
  ran: ReadonlySet<string>,
  fired: Readonly<Record<string, string | undefined>>,
): GraphEdge[] {
  return (plan.incoming.get(nodeId) ?? []).filter(
    (e) => ran.has(e.source) && (e.source_handle ?? undefined) === (fired[e.source] ?? undefined),
  );
}
