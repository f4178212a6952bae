/**
 * The entry of a sandbox thread (pool.ts starts it): runs one job at a time in QuickJS and answers
 * with the harness's report, a classified failure, or the engine's crash. Nothing here is reachable
 * from user code: QuickJS has no access to this thread's globals.
 */
import { readlinkSync } from 'node:fs';
import { constants, getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { CodeRunError } from './errors';
import { preloadQuickJs, runQuickJs, type SandboxJob } from './quickjs';
import type { ThreadAnswer, ThreadData } from './thread-protocol';

/** How many nice levels below the process user code runs (Linux), and the floor. */
const LOWER_BY = 10;
const LOWEST = constants.priority.PRIORITY_LOW;

const port = parentPort;
if (!port) throw new Error('sandbox-thread.ts runs on a worker thread only');
const answer = (message: ThreadAnswer) => port.postMessage(message);

lowerThreadPriority();
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

/**
 * User code gets the CPU the event loop does not need: on Linux, setpriority on a thread id lowers
 * that thread alone, here by 10 nice levels below the process (a tenth of the CPU weight when both
 * want it). Elsewhere the thread keeps the process's priority.
 */
function lowerThreadPriority(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId)) setPriority(threadId, Math.min(LOWEST, getPriority(threadId) + LOWER_BY));
  } catch {
    // No /proc (macOS) or no permission: nothing lowered.
  }
}
