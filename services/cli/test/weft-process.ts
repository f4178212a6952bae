import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { testLogDirectory } from '@weft/telemetry';
import { freePort } from '@weft/testing';
import { inject, onTestFailed } from 'vitest';

/**
 * `weft` as a user runs it, for the tests of `weft up`'s start-up checks and supervision: its
 * output goes to a file under the test's directory (and into memory for waiting on lines), and is
 * printed only when a test fails. Waits end on an event (a line appears, the process exits), never
 * on a clock: the test's own timeout is the only budget.
 */

// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const CLI = inject('cliBundle');

export interface WeftRun {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  /** Resolves with the first line matching `pattern`; rejects if the process exits before one comes. */
  waitFor(pattern: RegExp): Promise<string>;
  /** SIGINT (Ctrl-C), then the exit code. */
  stop(): Promise<number | string>;
}

/**
 * The test run's copy of a `weft` process's logs (its output, and the API and worker logs of the
 * stack it ran), under `<test-log dir>/cli/`: the test's own directory is deleted after it, and
 * the end-of-run scan for secrets must see these too.
 */
const runLogs = path.join(testLogDirectory(), 'cli');
let runs = 0;

/** Copies a stack's API and worker logs (`<dataDir>/logs/`) under the test run's log directory. */
export function keepStackLogs(dataDir: string | undefined, prefix: string) {
  const logs = dataDir ? path.join(dataDir, 'logs') : undefined;
  if (!logs || !existsSync(logs)) return;
  mkdirSync(runLogs, { recursive: true });
  for (const entry of readdirSync(logs, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.log')) {
      copyFileSync(path.join(entry.parentPath, entry.name), path.join(runLogs, `${prefix}-${entry.name}`));
    }
  }
}

export function runWeft(args: string[], env: NodeJS.ProcessEnv, logFile: string): WeftRun {
  const child = spawn(process.execPath, [CLI, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  mkdirSync(runLogs, { recursive: true });
  const prefix = `${process.pid}-${++runs}-${path.basename(logFile, '.log')}`;
  const file = createWriteStream(logFile, { flags: 'a' });
  const kept = createWriteStream(path.join(runLogs, `${prefix}.log`), { flags: 'a' });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    file.write(chunk);
    kept.write(chunk);
    for (const check of waiters) check();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      file.end();
      kept.end();
      keepStackLogs(env.WEFT_DATA_DIR, prefix);
      for (const check of waiters) check();
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const line = output.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) {
            waiters.delete(check);
            resolve(line);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            reject(new Error(`weft ${args.join(' ')} exited before printing ${pattern}:\n${output}`));
          }
        };
        waiters.add(check);
        check();
      }),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}

/** A fresh environment for one stack: its own data directory, free ports, a new APP_KEY. */
export async function stackEnv(dataDir: string, extra: Record<string, string> = {}) {
  const ports = {
    web: await freePort(),
    pg: await freePort(),
    temporal: await freePort(),
    ui: await freePort(),
  };
  const base = `http://127.0.0.1:${ports.web}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    APP_URL: base,
    PORT: String(ports.web),
    WEFT_DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(ports.pg),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    TEMPORAL_SDK_METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    DATABASE_URL: '',
    DATABASE_ADMIN_URL: '',
    TEMPORAL_ADDRESS: '',
    ...extra,
  };
  return { env, ports, base };
}

/** Prints the given log files (and every file in the given log directories) if the current test fails. */
export function printLogsOnFailure(...paths: string[]): void {
  onTestFailed(() => {
    for (const entry of paths) {
      if (!existsSync(entry)) continue;
      const files = entry.endsWith('.log') ? [entry] : readdirSync(entry).map((f) => path.join(entry, f));
      for (const file of files.filter((f) => f.endsWith('.log'))) {
        process.stderr.write(`\n===== ${file} =====\n${readFileSync(file, 'utf8')}\n`);
      }
    }
  });
}

/** The lines of `text` that look like a stack trace: a start-up failure must print none. */
export const stackTraceLines = (text: string) => text.split('\n').filter((l) => /^\s+at /.test(l));
