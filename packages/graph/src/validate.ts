import type { Graph, GraphIssue } from './schema';

/**
 * Structural checks of a graph that need no knowledge of node types:
 * unique node and edge ids, edges between existing nodes, no self-loops, no cycles.
 * Loops are expressed with `action.loop`, never with back-edges.
 */
export function validateGraphStructure(graph: Graph): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const nodeIndex = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    if (nodeIndex.has(node.id))
      issues.push({ path: ['nodes', i, 'id'], message: `duplicate node id "${node.id}"` });
    else nodeIndex.set(node.id, i);
  });

  const edgeIds = new Set<string>();
  graph.edges.forEach((edge, i) => {
    if (edge.id !== undefined) {
      if (edgeIds.has(edge.id))
        issues.push({ path: ['edges', i, 'id'], message: `duplicate edge id "${edge.id}"` });
      edgeIds.add(edge.id);
    }
    if (!nodeIndex.has(edge.source))
      issues.push({ path: ['edges', i, 'source'], message: `unknown node "${edge.source}"` });
    if (!nodeIndex.has(edge.target))
      issues.push({ path: ['edges', i, 'target'], message: `unknown node "${edge.target}"` });
    if (edge.source === edge.target)
      issues.push({ path: ['edges', i, 'target'], message: 'an edge cannot connect a node to itself' });
  });
  if (issues.length > 0) return issues;

  const cycleEdge = findCycleEdge(graph);
  if (cycleEdge !== undefined) {
    issues.push({
      path: ['edges', cycleEdge, 'target'],
      message: 'this edge closes a cycle; use action.loop to repeat steps',
    });
  }
  return issues;
}

/** Kahn's algorithm; returns the index of an edge that lies on a cycle, or undefined. */
function findCycleEdge(graph: Graph): number | undefined {
  const indegree = new Map(graph.nodes.map((n) => [n.id, 0]));
  const outgoing = new Map<string, string[]>(graph.nodes.map((n) => [n.id, []]));
  for (const edge of graph.edges) {
    indegree.set(edge.target, (indegree.get(edge.target) ?? 0) + 1);
    outgoing.get(edge.source)?.push(edge.target);
  }
  const ready = [...indegree].filter(([, d]) => d === 0).map(([id]) => id);
  const done = new Set<string>();
  while (ready.length > 0) {
    const id = ready.pop() as string;
    done.add(id);
    for (const target of outgoing.get(id) ?? []) {
      const d = (indegree.get(target) ?? 0) - 1;
      indegree.set(target, d);
      if (d === 0) ready.push(target);
    }
  }
  if (done.size === graph.nodes.length) return undefined;
  const index = graph.edges.findIndex((e) => !done.has(e.source) && !done.has(e.target));
  return index === -1 ? undefined : index;
}

/** Ids of the nodes from which `nodeId` can be reached (its ancestors). */
export function upstreamOf(graph: Graph, nodeId: string): Set<string> {
  const incoming = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const list = incoming.get(edge.target) ?? [];
    list.push(edge.source);
    incoming.set(edge.target, list);
  }
  const seen = new Set<string>();
  const stack = [...(incoming.get(nodeId) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(incoming.get(id) ?? []));
  }
  return seen;
}
