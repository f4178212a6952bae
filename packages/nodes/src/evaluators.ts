/**
 * The pure evaluators of node types that compute a result from their rendered config alone, one
 * line each. Free of zod: the interpreter calls them in workflow code, and the stored-output
 * activity calls the same functions when a config reads a large output kept in PostgreSQL.
 */
import { type RenderedConditionConfig, runCondition } from './condition/evaluate';
import { type RenderedSwitchConfig, runSwitch } from './switch/evaluate';
import { type RenderedTransformConfig, runTransform } from './transform/evaluate';

export interface EvaluatedNode {
  output: unknown;
  /** Which output handle fires; undefined = the node's only output. */
  handle?: string;
}

export type NodeEvaluator = (config: Record<string, unknown>) => EvaluatedNode;

export const NODE_EVALUATORS: Readonly<Record<string, NodeEvaluator>> = {
  'action.transform': (config) => ({ output: runTransform(config as unknown as RenderedTransformConfig) }),
  'action.condition': (config) => runCondition(config as unknown as RenderedConditionConfig),
  'action.switch': (config) => runSwitch(config as unknown as RenderedSwitchConfig),
};

export function getNodeEvaluator(type: string): NodeEvaluator | undefined {
  return Object.hasOwn(NODE_EVALUATORS, type) ? NODE_EVALUATORS[type] : undefined;
}
