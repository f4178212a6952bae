import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { printLogsOnFailure, runWeft, stackEnv, type WeftRun } from './weft-process';

/**
 * `weft up` supervises what it started (split layout: an API process and a worker process). A
 * worker killed with SIGKILL is restarted, /readyz says so meanwhile, and executions that were
 * waiting finish; a process that crashes at once every time ends the stack with one line. A second
 * `weft up` on the same data directory refuses, and a lock left by a dead one is taken over.
 */

const run = promisify(execFile);
// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const CLI = inject('cliBundle');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'weft-up-supervision-'));
  // mkdtemp makes it 700; the embedded PostgreSQL (the postgres user, when root) must reach the data dirs.
  await chmod(dir, 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A pid no process has any more: a child that ran and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

interface RunStateFile {
  pid: number;
  processes: Record<string, { pid?: number; state: string; restarts: number }>;
}

describe('weft up, split layout, supervised', () => {
  let stack: WeftRun | undefined;
  let env: NodeJS.ProcessEnv;
  let base: string;
  let dataDir: string;
  let apiKey: string;

  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: { 'X-Api-Key': apiKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [CLI, ...args], { env })).stdout);
  const runState = async () =>
    JSON.parse(await readFile(path.join(dataDir, 'weft-up.json'), 'utf8')) as RunStateFile;

  beforeAll(async () => {
    dataDir = path.join(dir, 'split');
    await mkdir(dataDir);
    // A lock left behind by a `weft up` that died (kill -9): taken over without a word.
    const stale = {
      pid: await deadPid(),
      started_at: 'then',
      app_url: 'http://x',
      ports: { app: 1 },
      processes: {},
    };
    await writeFile(path.join(dataDir, 'weft-up.json'), JSON.stringify(stale));
    ({ env, base } = await stackEnv(dataDir, { WEFT_PROCESS_LAYOUT: 'split' }));
    stack = runWeft(['up'], env, path.join(dir, 'split.log'));
    await stack.waitFor(/^Weft is running\.$/);
  }, 300_000);

  afterAll(async () => {
    if (stack) expect(await stack.stop()).toBe(0);
  }, 60_000);

  it('took over the stale lock and reports the worker in /readyz', async () => {
    printLogsOnFailure(path.join(dir, 'split.log'), path.join(dataDir, 'logs'));
    const state = await runState();
    expect(state.pid).toBe(stack?.child.pid);
    expect(state.processes.worker).toMatchObject({ state: 'running', restarts: 0 });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', temporal: 'ok', worker: 'ok' },
    });
  });

  it('a second `weft up` on the same data directory says who runs and leaves it running', async () => {
    printLogsOnFailure(path.join(dir, 'split.log'), path.join(dir, 'second.log'));
    const second = runWeft(['up'], env, path.join(dir, 'second.log'));
    expect(await second.exited).toBe(1);
    const lines = second.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^weft: Weft is already running \\(pid ${stack?.child.pid}, app ${base}, PostgreSQL port \\d+, Temporal port \\d+, since `,
      ),
    );
    expect((await runState()).pid).toBe(stack?.child.pid);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }, 60_000);

  it('restarts a worker killed with SIGKILL, says so in the log and /readyz, and waiting executions finish', async () => {
    printLogsOnFailure(path.join(dir, 'split.log'), path.join(dataDir, 'logs'));
    const org = await cli('org', 'create', '--name', 'Supervision', '--json');
    apiKey = (await cli('api-key', 'create', '--org', org.id, '--name', 'a', '--permissions', '*', '--json'))
      .key;
    const created = await api('POST', '/workflows', {
      name: 'waits',
      status: 'active',
      trigger_type: 'manual',
      nodes: [
        { id: 'wait', type: 'action.delay', config: { duration: '5s' } },
        {
          id: 'echo',
          type: 'action.transform',
          config: { assignments: [{ key: 'n', value: '{{trigger.n}}' }] },
        },
      ],
      edges: [{ source: 'wait', target: 'echo' }],
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) {
      const started = await api('POST', `/workflows/${created.json.id}/execute`, { input: { n } });
      expect(started.status).toBe(202);
      ids.push(started.json.execution_id as string);
    }

    const worker = (await runState()).processes.worker?.pid as number;
    process.kill(worker, 'SIGKILL');
    await stack?.waitFor(
      new RegExp(`worker \\(pid ${worker}\\) exited unexpectedly \\(SIGKILL\\); restarting in 1 s`),
    );
    // Until the new worker says it is ready (it has to load its bundle and connect first).
    const meanwhile = await fetch(`${base}/readyz`);
    expect(meanwhile.status).toBe(503);
    expect(((await meanwhile.json()) as { checks: { worker: string } }).checks.worker).toMatch(
      /^(restarting|starting)$/,
    );
    await stack?.waitFor(/worker is running again \(pid \d+, after restart 1\)/);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await runState()).processes.worker).toMatchObject({
      state: 'running',
      restarts: 1,
      last_exit: 'SIGKILL',
    });

    for (const id of ids) {
      for (;;) {
        const { json } = await api('GET', `/executions/${id}`);
        if (['success', 'partial', 'failed', 'cancelled'].includes(json.status as string)) {
          expect(json.status).toBe('success');
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }, 240_000);
});

describe('weft up, a process that crashes at once every time', () => {
  it('gives up after 5 crashes with one line naming the process and its log, and exits 1', async () => {
    const dataDir = path.join(dir, 'crashing');
    const logFile = path.join(dir, 'crashing.log');
    printLogsOnFailure(logFile, path.join(dataDir, 'logs'));
    // A worker setting only the worker checks: the CLI and the API start, the worker dies on start-up.
    // Restarts 100, 200, 400 and 800 ms after the crashes, not 1, 2, 4 and 8 s: the same policy, faster.
    const { env } = await stackEnv(dataDir, {
      WEFT_PROCESS_LAYOUT: 'split',
      WORKER_ISOLATE_TIMEOUT_MS: '999999',
      WEFT_RESTART_DELAY_MS: '100',
    });
    const up = runWeft(['up'], env, logFile);
    expect(await up.exited).toBe(1);
    const lines = up.output().split('\n');
    const logs = path.join(dataDir, 'logs', 'worker.log');
    expect(lines.filter((l) => l.includes('crashed'))).toEqual([
      `[weft] worker crashed 5 times within 120 s (last: exit code 1); stopping Weft. Its output is in ${logs}`,
    ]);
    expect(
      lines.filter((l) => /worker \(pid \d+\) exited unexpectedly \(exit code 1\); restarting in/.test(l)),
    ).toHaveLength(4);
    expect(lines.filter((l) => /restarting in 0\.8 s/.test(l))).toHaveLength(1);
    expect(up.output()).not.toContain('Weft is running.');
    expect(await readFile(logs, 'utf8')).toContain('WORKER_ISOLATE_TIMEOUT_MS');
  }, 300_000);
});
