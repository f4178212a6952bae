import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { CodeRunError, memoryError, timeoutError } from './errors';
import type { SandboxJob } from './quickjs';
import type { ThreadAnswer, ThreadData } from './thread-protocol';

export interface CodeSandboxPoolOptions {
  /** Sandbox threads; each runs one job at a time, so this caps the process's simultaneous runs. */
  threads: number;
  /** At most this many threads run one organization's code at once (the others stay for the rest). */
  perOrganization: number;
  /** V8 heap of each thread (`maxOldGenerationSizeMb`); QuickJS's own heap is a separate WASM memory. */
  threadHeapMb: number;
  /** A run still going this long after its timeout has its thread terminated. */
  graceMs: number;
  /** The memory limit whose QuickJS module each thread loads before it takes work. */
  preloadMemoryMb: number;
}

/**
 * Two threads on a 2-core machine, one per core above that (up to 8); one organization gets at
 * most half of them, so another organization's code always finds a free thread soon.
 */
export function defaultPoolOptions(): CodeSandboxPoolOptions {
  const threads = Math.min(8, Math.max(2, availableParallelism()));
  return {
    threads,
    perOrganization: Math.max(1, Math.floor(threads / 2)),
    // The report of a run (its result, as a string) is at most the largest memory_mb (256), plus
    // the thread's own modules.
    threadHeapMb: 384,
    graceMs: 100,
    preloadMemoryMb: 32,
  };
}

/** Plain JavaScript that registers the TypeScript loader, then loads sandbox-thread.ts. */
const THREAD_ENTRY = new URL('./sandbox-thread.mjs', import.meta.url);

interface Waiting {
  job: SandboxJob;
  organization: string;
  resolve(report: string): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  state: 'starting' | 'idle' | 'busy' | 'gone';
  /** Settles the job the thread is running (busy only). */
  settle?: (outcome: { report: string } | { error: Error }) => void;
  /**
   * The organization whose code got a thread terminated: the thread and its replacement count
   * against its share until the replacement is ready, so restarting threads costs it, not others.
   */
  chargedTo?: string;
}

/**
 * Runs QuickJS jobs on worker threads, so user code never holds the event loop that serves the API
 * and the Temporal worker. The main thread keeps the deadline: a run that has not answered
 * `graceMs` after its timeout (a single built-in call that QuickJS cannot interrupt) has its thread
 * terminated, which V8 does even inside WASM code, and a fresh thread takes its place.
 *
 * Jobs wait in one queue per organization, served in turn, and an organization never holds more
 * than `perOrganization` threads: a parallel loop of slow code delays its own runs, not others'.
 */
export class CodeSandboxPool {
  private readonly threads: Thread[] = [];
  /** Waiting jobs by organization; the Map's order is the turn order. */
  private readonly queues = new Map<string, Waiting[]>();
  private readonly running = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: CodeSandboxPoolOptions) {}

  /** The harness's report of the job, or a CodeRunError; another Error means the sandbox could not run it. */
  run(job: SandboxJob, organization: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error('the code sandbox is shut down'));
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(organization) ?? [];
      queue.push({ job, organization, resolve, reject });
      this.queues.set(organization, queue);
      this.fill();
      this.dispatch();
    });
  }

  /** Terminates every thread; jobs still running or waiting fail with a plain Error (not the code's fault). */
  async close(): Promise<void> {
    this.closed = true;
    const shuttingDown = () => new Error('the code sandbox is shutting down');
    for (const queue of this.queues.values()) for (const waiting of queue) waiting.reject(shuttingDown());
    this.queues.clear();
    const threads = this.threads.splice(0);
    for (const thread of threads) {
      thread.state = 'gone';
      thread.settle?.({ error: shuttingDown() });
    }
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  /** Starts threads up to the pool's size (the first run starts them all, so later runs find them warm). */
  private fill(): void {
    while (!this.closed && this.threads.length < this.options.threads) this.threads.push(this.spawn());
  }

  private spawn(): Thread {
    const data: ThreadData = { preloadMemoryMb: this.options.preloadMemoryMb };
    const worker = new Worker(THREAD_ENTRY, {
      workerData: data,
      // The entry registers tsx itself; the process's `--import tsx` would only be ignored here.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.threadHeapMb },
    });
    // Idle threads do not keep the process alive; a running job's deadline timer does.
    worker.unref();
    const thread: Thread = { worker, state: 'starting' };
    worker.on('message', (answer: ThreadAnswer) => this.onAnswer(thread, answer));
    worker.on('error', (error) => this.onError(thread, error));
    worker.on('exit', () => this.onExit(thread));
    return thread;
  }

  private onAnswer(thread: Thread, answer: ThreadAnswer): void {
    switch (answer.type) {
      case 'ready':
        if (thread.state === 'starting') thread.state = 'idle';
        this.uncharge(thread);
        this.dispatch();
        return;
      case 'report':
        thread.settle?.({ report: answer.report });
        return;
      case 'failure':
        thread.settle?.({ error: new CodeRunError(answer.code, answer.message) });
        return;
      case 'crashed':
        // The engine failed under this code (a WASM trap): a stable code, and a fresh thread after.
        this.retire(thread, engineFailure());
        return;
    }
  }

  /** An uncaught error ends the thread (its `exit` follows). */
  private onError(thread: Thread, error: Error): void {
    if (thread.state === 'busy') {
      // V8 stops a thread that reaches its heap limit with this code.
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.retire(thread, outOfMemory ? memoryError() : engineFailure());
      return;
    }
    const working = this.threads.some((other) => other.state === 'idle' || other.state === 'busy');
    if (thread.state === 'starting' && !working) {
      // No thread can start (its entry failed to load): the waiting jobs fail now instead of
      // waiting for a thread that never comes.
      for (const queue of this.queues.values()) {
        for (const waiting of queue)
          waiting.reject(new Error(`the code sandbox could not start: ${error.message}`));
      }
      this.queues.clear();
    }
  }

  private onExit(thread: Thread): void {
    const wasStarting = thread.state === 'starting';
    if (thread.state === 'busy') this.retire(thread, engineFailure());
    thread.state = 'gone';
    const index = this.threads.indexOf(thread);
    if (index >= 0) this.threads.splice(index, 1);
    // A thread that died while starting is replaced on the next run, not in a loop.
    if (wasStarting || this.closed) {
      this.uncharge(thread);
      return;
    }
    const replacement = this.spawn();
    replacement.chargedTo = thread.chargedTo;
    this.threads.push(replacement);
    this.fill();
  }

  private uncharge(thread: Thread): void {
    if (thread.chargedTo === undefined) return;
    this.release(thread.chargedTo);
    thread.chargedTo = undefined;
    this.dispatch();
  }

  private release(organization: string): void {
    const left = (this.running.get(organization) ?? 1) - 1;
    if (left > 0) this.running.set(organization, left);
    else this.running.delete(organization);
  }

  /** Hands waiting jobs to idle threads, organizations in turn, each within its share. */
  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.state !== 'idle') continue;
      const waiting = this.nextWaiting();
      if (!waiting) return;
      this.start(thread, waiting);
    }
  }

  private nextWaiting(): Waiting | undefined {
    for (const [organization, queue] of this.queues) {
      if ((this.running.get(organization) ?? 0) >= this.options.perOrganization) continue;
      const waiting = queue.shift();
      // To the back of the turn order, or out of it when nothing else waits.
      this.queues.delete(organization);
      if (queue.length > 0) this.queues.set(organization, queue);
      return waiting;
    }
    return undefined;
  }

  private start(thread: Thread, waiting: Waiting): void {
    const { job, organization } = waiting;
    thread.state = 'busy';
    this.running.set(organization, (this.running.get(organization) ?? 0) + 1);
    // QuickJS stops the code at the timeout by itself; this catches what it cannot interrupt.
    const deadline = setTimeout(
      () => this.retire(thread, timeoutError(job.timeoutMs)),
      job.timeoutMs + this.options.graceMs,
    );
    thread.settle = (outcome) => {
      thread.settle = undefined;
      clearTimeout(deadline);
      if (thread.state === 'busy') {
        thread.state = 'idle';
        this.release(organization);
      } else {
        // Retired (terminated): charged until its replacement is ready.
        thread.chargedTo = organization;
      }
      if ('report' in outcome) waiting.resolve(outcome.report);
      else waiting.reject(outcome.error);
      this.dispatch();
    };
    thread.worker.postMessage(job);
  }

  /** Fails the thread's job with `error` and terminates the thread; its `exit` brings a replacement. */
  private retire(thread: Thread, error: Error): void {
    thread.state = 'gone';
    thread.settle?.({ error });
    void thread.worker.terminate();
  }
}

function engineFailure(): CodeRunError {
  return new CodeRunError('code_error', 'the code stopped the sandbox engine');
}
