import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../src/main.ts');

let dataDir: string;
let env: NodeJS.ProcessEnv;
let ports: { web: number; pg: number; temporal: number; ui: number };
let running: ChildProcess | undefined;

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts `weft up` and resolves once it printed its URLs. */
async function startUp(): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'up'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`weft up did not become ready:\n${output}`)), 150_000);
    const check = setInterval(() => {
      if (output.includes('Weft is running.')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`weft up exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  return exited;
}

async function cli(...args: string[]) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], { env });
  return JSON.parse(stdout) as Record<string, string>;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-up-'));
  await chmod(dataDir, 0o755); // PostgreSQL may run as another system user
  ports = { web: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() };
  env = {
    ...process.env,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    APP_URL: `http://127.0.0.1:${ports.web}`,
    PORT: String(ports.web),
    WEFT_DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(ports.pg),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    DATABASE_URL: '',
    DATABASE_ADMIN_URL: '',
    TEMPORAL_ADDRESS: '',
  };
});
afterAll(async () => {
  // A failed assertion must not leave the stack running behind the test.
  if (running) await stop(running);
  await rm(dataDir, { recursive: true, force: true });
});

describe('weft up', () => {
  it('runs the whole stack, stops cleanly on Ctrl-C, and reuses its data on the next start', async () => {
    const first = await startUp();
    running = first.child;
    const base = `http://127.0.0.1:${ports.web}`;
    expect(first.output()).toContain(`API docs:    ${base}/api/v1/docs`);
    expect(first.output()).toContain(`Temporal UI: http://localhost:${ports.ui}`);

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
    expect((await fetch(`${base}/api/v1/docs`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);

    // The CLI talks to the running embedded database.
    const org = await cli('org', 'create', '--name', 'Up test', '--json');
    const key = await cli(
      'api-key',
      'create',
      '--org',
      org.id as string,
      '--name',
      'admin',
      '--permissions',
      '*',
      '--json',
    );
    expect(key.key).toMatch(/^weft_/);
    const user = await cli(
      'user',
      'create',
      '--org',
      org.id as string,
      '--email',
      'Ada@Example.com',
      '--password',
      'correct horse',
      '--role',
      'admin',
      '--json',
    );
    expect(user).toMatchObject({ email: 'Ada@Example.com', role: 'admin' });
    await expect(
      cli(
        'user',
        'create',
        '--org',
        org.id as string,
        '--email',
        'ada@example.com',
        '--password',
        'another one',
        '--json',
      ),
    ).rejects.toThrow(/already exists/);
    await expect(
      cli(
        'user',
        'create',
        '--org',
        org.id as string,
        '--email',
        'bob@example.com',
        '--password',
        'short',
        '--json',
      ),
    ).rejects.toThrow(/at least 8/);
    const created = await fetch(`${base}/api/v1/workflows`, {
      method: 'POST',
      headers: { 'X-Api-Key': key.key as string, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'survives restarts',
        trigger_type: 'manual',
        nodes: [
          {
            id: 'greet',
            type: 'action.transform',
            config: { assignments: [{ key: 'm', value: 'hi {{trigger.hello}}' }] },
          },
        ],
      }),
    });
    expect(created.status).toBe(201);

    // The worker process runs executions end to end.
    const workflow = (await created.json()) as { id: string };
    const started = await fetch(`${base}/api/v1/workflows/${workflow.id}/execute`, {
      method: 'POST',
      headers: { 'X-Api-Key': key.key as string, 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: { hello: 'world' } }),
    });
    expect(started.status).toBe(202);
    const { execution_id } = (await started.json()) as { execution_id: string };
    let execution: { status?: string } = {};
    for (let i = 0; i < 200 && execution.status !== 'success'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${base}/api/v1/executions/${execution_id}`, {
        headers: { 'X-Api-Key': key.key as string },
      });
      execution = (await res.json()) as { status?: string };
    }
    expect(execution.status).toBe('success');

    expect(await stop(first.child)).toBe(0);
    running = undefined;
    for (const port of Object.values(ports))
      expect(await portAnswers(port), `port ${port} still open`).toBe(false);

    const second = await startUp();
    running = second.child;
    try {
      const list = await fetch(`${base}/api/v1/workflows`, { headers: { 'X-Api-Key': key.key as string } });
      expect(list.status).toBe(200);
      const body = (await list.json()) as { data: { name: string }[] };
      expect(body.data.map((w) => w.name)).toEqual(['survives restarts']);
    } finally {
      running = undefined;
      expect(await stop(second.child)).toBe(0);
    }
  }, 300_000);
});
