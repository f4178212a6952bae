import { z } from 'zod';
import { DEFAULT_ON_FAILURE } from './defaults';

/** A node id is referenced from expressions (`{{nodes.<id>.field}}`), so it stays URL- and path-safe. */
export const NodeId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -');
export type NodeId = z.infer<typeof NodeId>;

export const OnFailure = z.enum(['continue', 'abort']);
export type OnFailure = z.infer<typeof OnFailure>;

export const CanvasPosition = z.object({ x: z.number(), y: z.number() });

export const GraphNode = z.object({
  id: NodeId,
  type: z.string().min(1).max(100),
  /** The version of its type the node was built with; absent = 1. New nodes get the latest. */
  type_version: z.number().int().min(1).max(1000).optional(),
  name: z.string().max(200).optional(),
  config: z.record(z.string(), z.unknown()).default({}),
  on_failure: OnFailure.default(DEFAULT_ON_FAILURE),
  position: CanvasPosition.optional(),
  /** Test runs use this instead of running the node; production runs ignore it (DESIGN §15). */
  pinned_output: z.record(z.string(), z.unknown()).optional(),
  /** A disabled step does not run: it passes its input through, in production and test runs. */
  disabled: z.boolean().optional(),
});
export type GraphNode = z.infer<typeof GraphNode>;

export const GraphEdge = z.object({
  id: z.string().min(1).max(128).optional(),
  source: NodeId,
  target: NodeId,
  /** Which output of the source: `true`/`false`, a switch case key, `each`/`done`; absent = the only output. */
  source_handle: z.string().min(1).max(64).nullish(),
});
export type GraphEdge = z.infer<typeof GraphEdge>;

/** A sticky note on the canvas: text for the people reading the workflow, never run. */
export const CanvasNote = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
  text: z.string().max(5000),
  position: CanvasPosition,
  width: z.number().min(80).max(2000).optional(),
  height: z.number().min(40).max(2000).optional(),
  color: z.enum(['yellow', 'blue', 'green', 'pink', 'gray']).default('yellow'),
});
export type CanvasNote = z.infer<typeof CanvasNote>;
export const MAX_NOTES = 100;

export const MAX_NODES = 500;
export const MAX_EDGES = 2000;

export const Graph = z.object({
  nodes: z.array(GraphNode).max(MAX_NODES).default([]),
  edges: z.array(GraphEdge).max(MAX_EDGES).default([]),
});
export type Graph = z.infer<typeof Graph>;

/** One problem found in a graph, with the path of the offending field (e.g. `['nodes', 2, 'config', 'url']`). */
export interface GraphIssue {
  path: (string | number)[];
  message: string;
}
