import type { Graph, GraphIssue } from '@weft/graph';
import { canonicalNodeType, getNodeType, nodeTypeVersions, outputHandles } from './registry';

/**
 * Checks each node against its type, in the version the node names (1 when it names none): known
 * type and version, valid config, and edges leaving it through a handle it has. Returns the graph
 * with canonical types and parsed (defaulted) configs.
 */
export function validateNodes(graph: Graph): { graph: Graph; issues: GraphIssue[] } {
  const issues: GraphIssue[] = [];
  const handlesById = new Map<string, string[]>();
  const nodes = graph.nodes.map((node, i) => {
    const versions = nodeTypeVersions(node.type);
    if (versions.length === 0) {
      issues.push({ path: ['nodes', i, 'type'], message: `unknown node type "${node.type}"` });
      return node;
    }
    const definition = getNodeType(node.type, node.type_version ?? 1);
    if (!definition) {
      issues.push({
        path: ['nodes', i, 'type_version'],
        message: `${canonicalNodeType(node.type)} has no version ${node.type_version} (it has ${versions.join(', ')})`,
      });
      return { ...node, type: canonicalNodeType(node.type) };
    }
    const parsed = definition.config.safeParse(node.config);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        // The whole issue (its code and bounds), so the API can say it in words.
        issues.push({ ...issue, path: ['nodes', i, 'config', ...issue.path.map(pathKey)] });
      }
      return { ...node, type: canonicalNodeType(node.type) };
    }
    handlesById.set(node.id, outputHandles(definition, parsed.data));
    return { ...node, type: definition.type, config: parsed.data as Record<string, unknown> };
  });

  graph.edges.forEach((edge, i) => {
    const handles = handlesById.get(edge.source);
    if (!handles) return;
    const handle = edge.source_handle ?? undefined;
    if (handle === undefined) {
      if (handles.length > 1)
        issues.push({ path: ['edges', i, 'source_handle'], message: `choose one of: ${handles.join(', ')}` });
    } else if (!handles.includes(handle)) {
      issues.push({
        path: ['edges', i, 'source_handle'],
        message: `"${handle}" is not an output of this node (${handles.join(', ')})`,
      });
    }
  });
  return { graph: { ...graph, nodes }, issues };
}

function pathKey(key: PropertyKey): string | number {
  return typeof key === 'number' ? key : String(key);
}
