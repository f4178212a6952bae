import type { Graph, GraphEdge, GraphIssue } from './schema';

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

/**
 * Depth-first search for a back edge (an edge to a node still on the search path): that edge closes
 * a cycle, so it is the one to point the user at. Iterative, so 500 chained nodes cannot overflow.
 */
function findCycleEdge(graph: Graph): number | undefined {
  const outgoing = new Map<string, number[]>(graph.nodes.map((n) => [n.id, []]));
  graph.edges.forEach((edge, i) => {
    outgoing.get(edge.source)?.push(i);
  });
  const state = new Map<string, 'on-path' | 'done'>();
  for (const start of graph.nodes) {
    if (state.has(start.id)) continue;
    const stack: { id: string; next: number }[] = [{ id: start.id, next: 0 }];
    state.set(start.id, 'on-path');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as { id: string; next: number };
      const edges = outgoing.get(frame.id) ?? [];
      if (frame.next >= edges.length) {
        state.set(frame.id, 'done');
        stack.pop();
        continue;
      }
      const edgeIndex = edges[frame.next++] as number;
      const target = (graph.edges[edgeIndex] as GraphEdge).target;
      const seen = state.get(target);
      if (seen === 'on-path') return edgeIndex;
      if (seen === undefined) {
        state.set(target, 'on-path');
        stack.push({ id: target, next: 0 });
      }
    }
  }
  return undefined;
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
