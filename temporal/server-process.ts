import { type ChildProcess, spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import type { TemporalConnectionOptions } from './connection';

/**
 * One Temporal server process started by Weft (the CLI dev server, or temporal-server): spawned in its
 * own process group (a terminal Ctrl-C reaches only the parent, which stops the server in order), its
 * output forwarded line by line, ready once its frontend answers GetSystemInfo.
 */
export interface TemporalServerProcess {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface TemporalServerSpawn {
  /** How it is called in errors ("The Temporal dev server", "temporal-server"). */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  address: string;
  /** How the readiness probe connects (TLS settings); default plaintext on `address`. */
  probe?: TemporalConnectionOptions;
  startTimeoutMs: number;
  /** Added to "exited during start-up" (what usually causes it). */
  exitHint: string;
  /** Grace between SIGTERM and SIGKILL when stopping. */
  stopGraceMs: number;
  log?: (line: string) => void;
}

export async function spawnTemporalServer(options: TemporalServerSpawn): Promise<TemporalServerProcess> {
  const child = spawn(options.command, options.args, {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) options.log?.(line);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + options.startTimeoutMs;
  for (;;) {
    if (exited) throw new Error(`${options.name} exited during start-up (${options.exitHint})`);
    try {
      const connection = await Connection.connect({
        ...(options.probe ?? { address: options.address }),
        connectTimeout: 1000,
      });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${options.name} did not answer on ${options.address}: ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return {
    address: options.address,
    process: child,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.stopGraceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}
