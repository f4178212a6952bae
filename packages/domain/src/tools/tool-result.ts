/**
 * A tool workflow's result (DESIGN §14): the output of its last completed node without outgoing
 * edges; with several such nodes completed, an object of their outputs keyed by node id. Nodes
 * inside a loop body count by their last iteration. No completed leaf: null.
 */
export function toolResult(
  graph: { nodes?: unknown; edges?: unknown },
  steps: { node_id: string; status: string; output: unknown }[],
): unknown {
  const edges = (Array.isArray(graph.edges) ? graph.edges : []) as { source?: string }[];
  const withOutgoing = new Set(edges.map((e) => e.source));
  const nodes = (Array.isArray(graph.nodes) ? graph.nodes : []) as { id: string }[];
  const leaves = new Set(nodes.map((n) => n.id).filter((id) => !withOutgoing.has(id)));
  // Steps come in run order: a later one (a later iteration) overwrites an earlier one.
  const outputs = new Map<string, unknown>();
  for (const step of steps) {
    if (step.status === 'completed' && leaves.has(step.node_id)) {
      outputs.delete(step.node_id);
      outputs.set(step.node_id, step.output);
    }
  }
  if (outputs.size === 0) return null;
  if (outputs.size === 1) return [...outputs.values()][0];
  return Object.fromEntries(outputs);
}
