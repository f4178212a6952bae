/**
 * Workflow definitions registered by the worker. Deterministic code only: Biome forbids Node
 * built-ins and I/O packages in this folder.
 */
export { dispatchExecutions } from './dispatch-executions';
export { executeGraph } from './execute-graph';
export { noop } from './noop';
