import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AppKey } from '@weft/config';
import { appKeyId } from '@weft/domain';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { printLogsOnFailure, runWeft, stackEnv, type WeftRun } from './weft-process';

/**
 * `weft backup` and `weft restore` as an operator runs them on the embedded stack: back up while an
 * execution waits for an event, add data, restore, and the restored stack serves the backed-up
 * state and the waiting execution completes when the event comes.
 */

// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const CLI = inject('cliBundle');
const run = promisify(execFile);

let root: string;
let env: NodeJS.ProcessEnv;
let base: string;
let stack: WeftRun | undefined;
let apiKey: string;
let starts = 0;

type Json = any;

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `weft <args> --json` that must succeed: its one JSON object. */
async function weftJson(...args: string[]): Promise<Json> {
  const { code, stdout, stderr } = await weft(...args, '--json');
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout);
}

async function startStack(): Promise<number> {
  const started = performance.now();
  stack = runWeft(['up'], env, path.join(root, `up-${++starts}.log`));
  await stack.waitFor(/Weft is running\./);
  return Math.round(performance.now() - started);
}

async function stopStack(): Promise<void> {
  expect(await stack?.stop()).toBe(0);
  stack = undefined;
}

async function api(method: string, route: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}/api/v1${route}`, {
    method,
    headers: { 'X-Api-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function eventually<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not met: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const execution = async (id: string): Promise<Json> => (await api('GET', `/executions/${id}`)).json;
const workflowNames = async (): Promise<string[]> =>
  ((await api('GET', '/workflows?per_page=100')).json.data as Json[]).map((w) => w.name).sort();

async function createWorkflow(name: string): Promise<string> {
  const { status, json } = await api('POST', '/workflows', {
    name,
    status: 'active',
    trigger_type: 'manual',
    nodes: [
      {
        id: 'wait',
        type: 'action.wait_for_event',
        config: { event: 'order.paid', match: { field: 'order_id', equals: '{{trigger.order_id}}' } },
      },
      {
        id: 'done',
        type: 'action.transform',
        config: { assignments: [{ key: 'paid', value: '{{nodes.wait.event.amount}}' }] },
      },
    ],
    edges: [{ source: 'wait', target: 'done', source_handle: 'received' }],
  });
  expect(status, JSON.stringify(json)).toBe(201);
  return json.id;
}

/** Starts the workflow and resolves once its execution waits for order.paid. */
async function startWaiting(workflowId: string, orderId: string): Promise<string> {
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { order_id: orderId } });
  expect(started.status, JSON.stringify(started.json)).toBe(202);
  const id = started.json.execution_id as string;
  await eventually(
    'the execution waits for its event',
    () => execution(id),
    (e) => e?.steps?.some((s: Json) => s.node_id === 'wait' && s.status === 'waiting'),
  );
  return id;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'weft-backup-'));
  ({ env, base } = await stackEnv(path.join(root, 'data')));
});

afterAll(async () => {
  await stack?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('weft backup / weft restore', () => {
  it('restores the backed-up state, and an execution waiting at backup time completes after restore', async () => {
    printLogsOnFailure(root);
    await startStack();
    const org = await weftJson('org', 'create', '--name', 'Backed up');
    const key = await weftJson('api-key', 'create', '--org', org.id, '--name', 'ops', '--permissions', '*');
    apiKey = key.key;
    const kept = await createWorkflow('kept');
    const waiting = await startWaiting(kept, 'A-1');

    // A backup needs the stack stopped; refused (one line, exit 1) while it runs.
    const refused = await weft('backup', '--to', path.join(root, 'refused'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^weft: weft backup needs the stack stopped: `weft up` is running/);
    expect(existsSync(path.join(root, 'refused'))).toBe(false);

    await stopStack();
    const backupDir = path.join(root, 'backup');
    const backup = await weftJson('backup', '--to', backupDir);
    // The dev server's SQLite keeps a write-ahead log beside its file: it is part of the state.
    expect(backup.entries.slice(0, 2)).toEqual(['postgres', 'temporal.db']);
    expect((await readdir(backupDir)).sort()).toEqual([...backup.entries, 'weft-backup.json'].sort());

    // After the backup: a new workflow, and the waiting execution completes.
    await startStack();
    await createWorkflow('added after the backup');
    expect(await workflowNames()).toEqual(['added after the backup', 'kept']);
    expect(
      (await api('POST', '/events', { event: 'order.paid', payload: { order_id: 'A-1', amount: 5 } })).status,
    ).toBe(202);
    await eventually(
      'the execution completes before restore',
      () => execution(waiting),
      (e) => e.status === 'success',
    );
    await stopStack();

    const restoreStarted = performance.now();
    const restore = await weftJson('restore', '--from', backupDir);
    const restoreMs = Math.round(performance.now() - restoreStarted);
    expect(restore.replaced).toHaveLength(backup.entries.length);
    for (const aside of restore.replaced) expect(existsSync(aside)).toBe(true);
    const startMs = await startStack();
    console.log(
      `restore: weft restore ${restoreMs} ms (copy ${restore.duration_ms} ms), then weft up ready in ${startMs} ms`,
    );

    // The backed-up state: the later workflow is gone, and the execution waits again.
    expect(await workflowNames()).toEqual(['kept']);
    expect((await execution(waiting)).status).toBe('waiting');
    const published = await api('POST', '/events', {
      event: 'order.paid',
      payload: { order_id: 'A-1', amount: 42 },
    });
    expect(published.status).toBe(202);
    const done = await eventually(
      'the restored execution completes',
      () => execution(waiting),
      (e) => e.status === 'success',
    );
    expect(done.steps.find((s: Json) => s.node_id === 'done').output).toEqual({ paid: 42 });
    await stopStack();
  }, 400_000);

  it('refuses a directory that is no backup, and a backup made with another APP_KEY, in one line', async () => {
    const notBackup = await weft('restore', '--from', root);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toBe(`weft: ${root} is not a weft backup: it has no weft-backup.json\n`);
    const backupDir = path.join(root, 'backup');
    const otherKey = { ...env, APP_KEY: `base64:${Buffer.alloc(32, 7).toString('base64')}` };
    const { code, stderr } = await run(process.execPath, [CLI, 'restore', '--from', backupDir], {
      env: otherKey,
    }).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/was backed up with another APP_KEY/);
    const nonEmpty = await weft('backup', '--to', backupDir);
    expect(nonEmpty.stderr).toMatch(/is not empty/);
  }, 60_000);

  it("names the backup by the key ring's key id and restores it after a rotation (its key in APP_KEYS_PREVIOUS)", async () => {
    const backupDir = path.join(root, 'backup');
    const manifest = JSON.parse(await readFile(path.join(backupDir, 'weft-backup.json'), 'utf8'));
    const keyA = env.APP_KEY as string;
    expect(manifest.app_key_id).toBe(appKeyId(AppKey.parse(keyA)));
    const rotated = {
      ...env,
      APP_KEY: `base64:${Buffer.alloc(32, 9).toString('base64')}`,
      APP_KEYS_PREVIOUS: keyA,
    };
    const { code, stdout, stderr } = await run(
      process.execPath,
      [CLI, 'restore', '--from', backupDir, '--json'],
      { env: rotated },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout).created_at).toBe(manifest.created_at);
  }, 60_000);
});
