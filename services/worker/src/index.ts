export { installTemporalRuntime } from './temporal-runtime';
export { createWorker, type WorkerOptions } from './worker';
