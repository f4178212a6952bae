export { createWorker, type WorkerOptions } from './worker';
