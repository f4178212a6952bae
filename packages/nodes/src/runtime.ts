/**
 * What workflow code needs from the node package: the pure evaluators and how each type runs.
 * Free of zod for the reason given in @weft/graph/runtime (module state is rebuilt per workflow run).
 */
export { delayMs, durationToMs } from './delay/evaluate';
export { type EvaluatedNode, getNodeEvaluator, NODE_EVALUATORS, type NodeEvaluator } from './evaluators';
export { maskPhoneText, redactResolvedConfig } from './redact';
export { ACTIVITY_NODE_TRAITS, type ActivityNodeTraits, NODE_RUNS_IN, runsInActivity } from './runs-in';
export { disabledHandle, handleOfOutput, isReplayedInReplays, REPLAYED_NODE_TYPES } from './workbench';
