/**
 * The entry of a sandbox thread (pool.ts starts it): runs one job at a time in QuickJS and answers
 * with the harness's report, a classified failure, or the engine's crash. Nothing here is reachable
 * from user code: QuickJS has no access to this thread's globals.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CodeRunError } from './errors';
import { preloadQuickJs, runQuickJs, type SandboxJob } from './quickjs';
import type { ThreadAnswer, ThreadData } from './thread-protocol';

const port = parentPort;
if (!port) throw new Error('sandbox-thread.ts runs on a worker thread only');
const answer = (message: ThreadAnswer) => port.postMessage(message);

await preloadQuickJs((workerData as ThreadData).preloadMemoryMb);

port.on('message', (job: SandboxJob) => {
  runQuickJs(job).then(
    (report) => answer({ type: 'report', report }),
    (error: unknown) => {
      if (error instanceof CodeRunError)
        answer({ type: 'failure', code: error.code, message: error.message });
      else answer({ type: 'crashed', message: error instanceof Error ? error.message : String(error) });
    },
  );
});
answer({ type: 'ready' });
