/**
 * What workflow code needs from the node package: the pure evaluators and where each type runs.
 * Free of zod for the reason given in @weft/graph/runtime (module state is rebuilt per workflow run).
 */
export { type RenderedConditionConfig, runCondition } from './condition/evaluate';
export { delayMs, durationToMs } from './delay/evaluate';
export { NODE_RUNS_IN, runsInActivity } from './runs-in';
export { type RenderedSwitchConfig, runSwitch } from './switch/evaluate';
export { type RenderedTransformConfig, runTransform } from './transform/evaluate';
