/**
 * Workflow definitions registered by the worker. Deterministic code only: Biome forbids Node
 * built-ins and I/O packages in this folder.
 */
export { cartWatcher } from './cart-watcher';
export { deliverWebhook } from './deliver-webhook';
export { dispatchExecutions } from './dispatch-executions';
export { executeGraph } from './execute-graph';
export { noop } from './noop';
export { pollTrigger } from './poll';
export { scheduledFire } from './scheduled-fire';
