import type { ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { stopChild } from './children';
import type { ProcessState } from './run-state';

/**
 * When a crashed process is started again. The delay doubles with each crash inside the window
 * (1 s, 2 s, 4 s, 8 s …, at most `maxDelayMs`), so a process that died once is back at once and one
 * that keeps dying does not spin; the `maxCrashes`-th crash inside the window ends the stack,
 * because something that fails that often needs a person, not another restart.
 */
export interface RestartPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  maxCrashes: number;
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  firstDelayMs: 1000,
  maxDelayMs: 30_000,
  maxCrashes: 5,
  windowMs: 120_000,
};

export interface SuperviseOptions {
  /** The role, as the log and /readyz name it: `api+worker`, `api` or `worker`. */
  name: string;
  /** Spawns the process with piped output and an IPC channel (spawnService with `supervised`). */
  start: () => ChildProcess;
  /** The process's output goes here as well as to the terminal; the give-up line points at it. */
  logFile: string;
  log: (line: string) => void;
  /** Records the process's state; the log line about a change waits for it, so /readyz agrees with the log. */
  onState: (update: Partial<ProcessState>) => Promise<void>;
  /** Called once with the one line to print when the process keeps crashing. */
  onGiveUp: (line: string) => void;
  policy?: RestartPolicy;
}

export interface Supervised {
  /** Resolves once the process (if one runs) has exited; no restart follows. */
  stop(): Promise<void>;
  /** False after the supervisor gave up. */
  alive(): boolean;
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ?? `exit code ${code}`;
}

const seconds = (ms: number) => `${ms / 1000} s`;

/** Keeps one child process running: restarts it with backoff when it exits without being asked to. */
export function supervise(options: SuperviseOptions): Supervised {
  const policy = options.policy ?? DEFAULT_RESTART_POLICY;
  const { name, log } = options;
  let child: ChildProcess | undefined;
  let output: WriteStream | undefined;
  let stopped = false;
  let gaveUp = false;
  let restarts = 0;
  let pendingRestart: NodeJS.Timeout | undefined;
  let crashes: number[] = [];

  const forward = (from: NodeJS.ReadableStream | null, to: NodeJS.WritableStream) => {
    from?.on('data', (chunk: Buffer) => {
      to.write(chunk);
      output?.write(chunk);
    });
  };

  const onExit = (exited: ChildProcess, code: number | null, signal: NodeJS.Signals | null) => {
    if (stopped || exited !== child) return;
    const how = describeExit(code, signal);
    const now = Date.now();
    crashes = [...crashes.filter((at) => now - at < policy.windowMs), now];
    const giveUp = crashes.length >= policy.maxCrashes;
    const delay = Math.min(policy.firstDelayMs * 2 ** (crashes.length - 1), policy.maxDelayMs);
    if (!giveUp) {
      restarts++;
      pendingRestart = setTimeout(spawnOne, delay);
    }
    const restart = restarts;
    void options.onState({ pid: undefined, state: 'restarting', last_exit: how, restarts }).then(() => {
      if (stopped) return;
      if (giveUp) {
        // Only now, with the line on its way: `weft up` polls alive() and would otherwise stop
        // everything (and this supervisor) first, and the line naming the log would never print.
        gaveUp = true;
        options.onGiveUp(
          `${name} crashed ${crashes.length} times within ${seconds(policy.windowMs)} (last: ${how}); ` +
            `stopping Weft. Its output is in ${options.logFile}`,
        );
        return;
      }
      log(
        `${name} (pid ${exited.pid}) exited unexpectedly (${how}); restarting in ${seconds(delay)} ` +
          `(restart ${restart}; crash ${crashes.length} of ${policy.maxCrashes} allowed within ${seconds(policy.windowMs)})`,
      );
    });
  };

  function spawnOne() {
    pendingRestart = undefined;
    if (stopped) return;
    // Each `weft up` starts the file afresh; restarts of this run append to it.
    output ??= createWriteStream(options.logFile, { flags: 'w' });
    if (restarts > 0) output.write(`\n[weft] --- ${name} restarted (restart ${restarts}) ---\n`);
    const started = options.start();
    child = started;
    forward(started.stdout, process.stdout);
    forward(started.stderr, process.stderr);
    void options.onState({ pid: started.pid, state: 'starting' });
    started.on('message', (message: unknown) => {
      if ((message as { weft?: string } | null)?.weft !== 'ready' || started !== child) return;
      const restart = restarts;
      void options.onState({ state: 'running' }).then(() => {
        if (restart > 0) log(`${name} is running again (pid ${started.pid}, after restart ${restart})`);
      });
    });
    started.once('exit', (code, signal) => onExit(started, code, signal));
  }

  spawnOne();
  return {
    async stop() {
      stopped = true;
      clearTimeout(pendingRestart);
      if (child) await stopChild(child);
      await new Promise<void>((resolve) => (output ? output.end(resolve) : resolve()));
    },
    alive: () => !gaveUp,
  };
}
