import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '@weft/temporal/activities';

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** Connects to Temporal and builds the worker (workflow bundle + activities); call `run()` on it. */
export async function createWorker(
  options: WorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: fileURLToPath(import.meta.resolve('@weft/temporal/workflows')),
    activities: createActivities({}),
  });
  return { worker, connection };
}
