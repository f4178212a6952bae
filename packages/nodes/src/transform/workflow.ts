import { defineWorkflowNode } from '../workflow-node';

/** A transform config after interpolation: a value that was exactly one {{...}} keeps its type. */
export interface RenderedTransformConfig {
  assignments: { key: string; value: unknown }[];
}

/** The output object of a transform whose assignment values were already interpolated. */
export function evaluateTransformNode(config: RenderedTransformConfig): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const { key, value } of config.assignments) {
    // Own data property even for a key like "__proto__": never a prototype write.
    Object.defineProperty(output, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return output;
}

/** action.transform runs in workflow code: a pure evaluation of its rendered config. */
export const transformWorkflow = defineWorkflowNode({
  type: 'action.transform',
  runsIn: 'workflow',
  evaluate: (config) => ({ output: evaluateTransformNode(config as unknown as RenderedTransformConfig) }),
});
