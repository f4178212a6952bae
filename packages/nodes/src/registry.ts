import { z } from 'zod';
import { canonicalNodeType, NODE_TYPE_ALIASES } from './aliases';
import { NODE_CATEGORIES, type NodeTypeDefinition, versionOf } from './define';
import * as nodeTypeModules from './types';
import { replaysFromRecording } from './workbench';

/**
 * Every node type version, from `types.ts` (one line per type), ordered as the palette shows them:
 * by category, then by name.
 */
export const NODE_TYPE_VERSIONS: readonly NodeTypeDefinition[] = (
  Object.values(nodeTypeModules) as NodeTypeDefinition[]
).sort(
  (a, b) =>
    NODE_CATEGORIES.indexOf(a.category) - NODE_CATEGORIES.indexOf(b.category) ||
    a.name.localeCompare(b.name) ||
    versionOf(a) - versionOf(b),
);

const versionsByType = new Map<string, NodeTypeDefinition[]>();
const latest: NodeTypeDefinition[] = [];

function index(definitions: readonly NodeTypeDefinition[]) {
  versionsByType.clear();
  for (const definition of definitions) {
    const versions = versionsByType.get(definition.type) ?? [];
    versions.push(definition);
    versions.sort((a, b) => versionOf(a) - versionOf(b));
    versionsByType.set(definition.type, versions);
  }
  latest.splice(
    0,
    latest.length,
    ...[...versionsByType.values()].map((v) => v[v.length - 1] as NodeTypeDefinition),
  );
}
index(NODE_TYPE_VERSIONS);

/** The latest version of every node type, in registry order: what new nodes get. */
export const NODE_TYPES: readonly NodeTypeDefinition[] = latest;

/**
 * For tests: adds a version of a registered type, as if it had a line above, until the returned
 * function is called. (GET /node-types describes the types as the process started.)
 */
export function addNodeTypeVersionForTests(definition: NodeTypeDefinition): () => void {
  if (!versionsByType.has(definition.type)) throw new Error(`${definition.type} is not a registered type`);
  if (getNodeType(definition.type, versionOf(definition))) {
    throw new Error(`${definition.type} already has version ${versionOf(definition)}`);
  }
  const all = [...versionsByType.values()].flat();
  index([...all, definition]);
  return () => index(all);
}

export { canonicalNodeType, NODE_TYPE_ALIASES };

/**
 * Every `type` a workflow node may name on input (canonical and alias spellings), as a zod enum so
 * the OpenAPI document lists them and API clients and fuzzers can build real workflows. Its error
 * keeps validateNodes' wording for an unknown type.
 */
export const NodeTypeName = z.enum(
  [...NODE_TYPES.map((d) => d.type), ...Object.keys(NODE_TYPE_ALIASES)] as [string, ...string[]],
  { error: (issue) => `unknown node type "${String(issue.input)}"` },
);

/** A type's definition: of the given version, or its latest when no version is given. */
export function getNodeType(type: string, version?: number): NodeTypeDefinition | undefined {
  const versions = versionsByType.get(canonicalNodeType(type));
  if (!versions) return undefined;
  if (version === undefined) return versions[versions.length - 1];
  return versions.find((d) => versionOf(d) === version);
}

/** The versions a type has, oldest first (empty for an unknown type). */
export function nodeTypeVersions(type: string): number[] {
  return (versionsByType.get(canonicalNodeType(type)) ?? []).map(versionOf);
}

/** The node types whose config may use `{{credentials.…}}` (checked at save). */
export const CREDENTIAL_NODE_TYPES: readonly string[] = NODE_TYPES.filter((d) => d.workflow?.credentials).map(
  (d) => d.type,
);

/** The output handles a node of this definition offers, given its (parsed) config. */
export function outputHandles(definition: NodeTypeDefinition, config: unknown): string[] {
  if (definition.outputs !== 'cases') return [...definition.outputs];
  const parsed = definition.config.safeParse(config);
  const cases = parsed.success ? ((parsed.data as { cases: { key: string }[] }).cases ?? []) : [];
  return [...cases.map((c) => c.key), 'default'];
}

function describeVersion(definition: NodeTypeDefinition) {
  return {
    version: versionOf(definition),
    config_schema: z.toJSONSchema(definition.config, { io: 'input', unrepresentable: 'any' }),
    output_schema: z.toJSONSchema(definition.output, { unrepresentable: 'any' }),
    ports: {
      inputs: ['main'],
      outputs:
        definition.outputs === 'cases'
          ? { from_config: 'cases[].key', plus: ['default'] }
          : definition.outputs,
    },
  };
}

/**
 * The description served by GET /node-types, with JSON Schema generated from the zod schemas: the
 * latest version at the top level (what new nodes get), the older versions a saved node may still
 * use under `previous_versions`.
 */
export function describeNodeType(definition: NodeTypeDefinition) {
  const older = (versionsByType.get(definition.type) ?? []).filter(
    (d) => versionOf(d) < versionOf(definition),
  );
  return {
    type: definition.type,
    name: definition.name,
    category: definition.category,
    description: definition.description,
    icon: definition.icon ?? 'box',
    reuses_recording: replaysFromRecording(
      definition.workflow ?? { type: definition.type, runsIn: 'activity' },
    ),
    ...describeVersion(definition),
    previous_versions: older.map(describeVersion),
  };
}
