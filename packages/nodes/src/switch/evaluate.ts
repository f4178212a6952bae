import { evaluateCondition } from '../condition/evaluate';

/** A switch config after interpolation. */
export interface RenderedSwitchConfig {
  value: unknown;
  cases: { key: string; equals: unknown }[];
}

/** The first case whose value equals the switch value wins; otherwise `default`. */
export function runSwitch(config: RenderedSwitchConfig): { output: { matched: string }; handle: string } {
  const match = config.cases.find((c) => evaluateCondition(config.value, 'equals', c.equals));
  const handle = match?.key ?? 'default';
  return { output: { matched: handle }, handle };
}
