import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { childProcessEnv } from '@weft/config';
import { PROJECT_ROOT } from './project';

/**
 * An empty directory for one bench or chaos run's service logs (`<data>/logs/<run>/`), emptied at
 * the start of each run so the files hold only the last one. The services write there, not to the
 * terminal, where thousands of request lines would bury the figures.
 */
export function runLogDirectory(dataDirectory: string, run: string): string {
  const directory = path.join(dataDirectory, 'logs', run);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  return directory;
}

/**
 * Runs an entry point of this repo as a child process in its own process group, so a Ctrl-C in
 * the terminal reaches only `weft up`, which then stops everything in order. The entry is a
 * service bundle (service-bundle.ts) or a TypeScript file, which runs through tsx.
 */
export function spawnService(
  entry: string,
  env: Record<string, string | undefined>,
  options: {
    /** Node options before the entry point, e.g. a heap limit or `--cpu-prof`. */
    nodeArgs?: string[];
    /** Send the service's standard output to our standard error (keeps `--json` output clean). */
    stdoutToStderr?: boolean;
    /**
     * Pipe its output (the supervisor copies it to the terminal and a log file) and open an IPC
     * channel, over which the service says when it is ready.
     */
    supervised?: boolean;
    /** Append the service's standard output and error to this file instead (benches, chaos cases). */
    logFile?: string;
  } = {},
): ChildProcess {
  const stdout = options.stdoutToStderr ? 2 : 'inherit';
  let stdio: StdioOptions = options.supervised
    ? ['ignore', 'pipe', 'pipe', 'ipc']
    : ['ignore', stdout, 'inherit'];
  let logFd: number | undefined;
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    logFd = openSync(options.logFile, 'a');
    stdio = ['ignore', logFd, logFd];
  }
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, entry], {
    cwd: PROJECT_ROOT,
    env: childProcessEnv(env),
    stdio,
    detached: true,
  });
  // The child holds its own copy of the descriptor.
  if (logFd !== undefined) closeSync(logFd);
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function waitForHttp(url: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error(`a service exited before ${url} answered`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs a TypeScript entry point to completion (a one-off step such as building the workflow bundle). */
export function runStep(entry: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${entry} exited with ${code}`)),
    );
  });
}
