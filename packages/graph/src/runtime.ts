/**
 * What workflow code needs from the graph package, and nothing more: rendering expressions and
 * spotting stored-output references. Deliberately free of zod and croner. The Temporal SDK evaluates
 * the workflow bundle's modules afresh for every workflow run, so each schema a module builds at load
 * time is rebuilt per execution (it was a third of the worker's CPU). Graphs were validated at save
 * time, so the interpreter needs plain types, not validators. A test keeps zod out of the bundle.
 */
export { DEFAULT_ON_FAILURE } from './defaults';
export { ExpressionTooLargeError } from './interpolation/limits';
export { renderValue } from './interpolation/render';
export {
  type ExpressionScope,
  type RenderOptions,
  referencesCredentials,
} from './interpolation/scope';
export {
  type GraphPlan,
  LOOP_EACH_HANDLE,
  liveEdges,
  loopEntries,
  planGraph,
  readyNodes,
} from './plan';
export type { GraphEdge, GraphNode } from './schema';
export {
  containsStoredOutput,
  isStoredOutputRef,
  STORED_OUTPUT_KEY,
  type StoredOutputRef,
} from './stored-output';
export {
  type RetryScope,
  retryScope,
  type TestRunBounds,
  type TestRunScope,
  testRunScope,
} from './test-run';
