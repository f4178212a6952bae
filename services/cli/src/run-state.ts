import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** What one process of the stack is doing, as the supervisor last saw it. */
export interface ProcessState {
  pid: number | undefined;
  /** `starting` until the process says it is ready; `restarting` while waiting out the backoff. */
  state: 'starting' | 'running' | 'restarting';
  restarts: number;
  /** How the last run ended, e.g. `SIGKILL` or `exit code 1`. */
  last_exit?: string;
}

/**
 * `<WEFT_DATA_DIR>/weft-up.json`: the lock that keeps a second `weft up` off a data directory in
 * use, and the supervisor's view of its processes (the API's /readyz reads the worker's entry).
 */
export interface RunState {
  pid: number;
  started_at: string;
  app_url: string;
  ports: { app: number; postgres?: number; temporal?: number; temporal_ui?: number };
  processes: Record<string, ProcessState>;
}

export const RUN_STATE_FILE = 'weft-up.json';

/** Whether `pid` names a live process (EPERM: alive, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The one line a second `weft up` prints about the first. */
export function describeRunning(state: RunState): string {
  const { ports } = state;
  const parts = [`pid ${state.pid}`, `app ${state.app_url}`];
  if (ports.postgres) parts.push(`PostgreSQL port ${ports.postgres}`);
  if (ports.temporal) parts.push(`Temporal port ${ports.temporal}`);
  return `Weft is already running (${parts.join(', ')}, since ${state.started_at}); stop it first (Ctrl-C in its terminal, or kill ${state.pid})`;
}

export class AlreadyRunning extends Error {
  override name = 'AlreadyRunning';
}

/**
 * Takes the data directory for this process. The file is created exclusively (`wx`), so of two
 * `weft up` started at the same moment exactly one wins; a file left by a process that died (kill
 * -9, power loss) is taken over. Throws AlreadyRunning naming the live owner.
 */
export async function acquireRunState(dataDir: string, initial: RunState): Promise<RunStateHandle> {
  const file = path.join(dataDir, RUN_STATE_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(file, JSON.stringify(initial, null, 2), { flag: 'wx', mode: 0o644 });
      return new RunStateHandle(file, initial);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const owner = await readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as RunState)
      .catch(() => undefined);
    if (owner && owner.pid !== process.pid && isAlive(owner.pid))
      throw new AlreadyRunning(describeRunning(owner));
    await unlink(file).catch(() => {});
  }
}

export class RunStateHandle {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    private state: RunState,
  ) {}

  /** Records a process's state; writes go one after another and replace the file atomically. */
  setProcess(name: string, update: Partial<ProcessState>): Promise<void> {
    const previous = this.state.processes[name] ?? { pid: undefined, state: 'starting', restarts: 0 };
    this.state = {
      ...this.state,
      processes: { ...this.state.processes, [name]: { ...previous, ...update } },
    };
    const snapshot = JSON.stringify(this.state, null, 2);
    const temporary = `${this.file}.${process.pid}.tmp`;
    this.writing = this.writing
      .then(() => writeFile(temporary, snapshot, { mode: 0o644 }))
      .then(() => rename(temporary, this.file))
      .catch(() => {
        // A state write that fails (disk full meanwhile) must not take the stack down; /readyz then
        // reports what it last read.
      });
    return this.writing;
  }

  async release(): Promise<void> {
    await this.writing;
    await unlink(this.file).catch(() => {});
  }
}
