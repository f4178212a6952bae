import { loadEnv, WorkerEnv } from '@weft/config';
import { createWorker } from './worker';

const env = loadEnv(WorkerEnv, process.env);
if (!env.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for the worker (weft up sets it).');
const { worker, connection } = await createWorker({
  address: env.TEMPORAL_ADDRESS,
  namespace: env.TEMPORAL_NAMESPACE,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
});
// Worker.run() resolves after SIGINT/SIGTERM: the SDK installs the signal handlers and drains tasks.
console.log(`[worker] polling task queue "${env.TEMPORAL_TASK_QUEUE}" on ${env.TEMPORAL_ADDRESS}`);
await worker.run();
await connection.close();
