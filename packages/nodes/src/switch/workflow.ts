import { evaluateCondition } from '../condition/workflow';
import { defineWorkflowNode } from '../workflow-node';

/** A switch config after interpolation. */
export interface RenderedSwitchConfig {
  value: unknown;
  cases: { key: string; equals: unknown }[];
}

/** The first case whose value equals the switch value wins; otherwise `default`. */
export function evaluateSwitchNode(config: RenderedSwitchConfig): {
  output: { matched: string };
  handle: string;
} {
  const match = config.cases.find((c) => evaluateCondition(config.value, 'equals', c.equals));
  const handle = match?.key ?? 'default';
  return { output: { matched: handle }, handle };
}

/** action.switch runs in workflow code: a pure evaluation of its rendered config. */
export const switchWorkflow = defineWorkflowNode({
  type: 'action.switch',
  runsIn: 'workflow',
  handleOf: (output) => (typeof output.matched === 'string' ? output.matched : 'default'),
  disabledHandle: 'default',
  evaluate: (config) => evaluateSwitchNode(config as unknown as RenderedSwitchConfig),
});
