import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CliEnv, loadEnv } from '@weft/config';
import { acceptedPassword } from '@weft/db';
import { createSecretBox } from '@weft/domain';
import { createTestDatabase, freePort, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/database';
import { derivedSecret } from '../src/project';
import { stackEnv } from './weft-process';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const keyA = randomBytes(32);
const keyB = randomBytes(32);
const env64 = (key: Buffer) => `base64:${key.toString('base64')}`;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point as `weft up` runs its services, to its exit. */
function run(entry: string, args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a key that opens nothing stops the processes, and weft keys rotate re-seals', () => {
  let db: TestDatabase;
  let databaseEnv: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    databaseEnv = { DATABASE_URL: db.appUrl, DATABASE_ADMIN_URL: db.adminUrl };
    const org = randomUUID();
    await db.admin`insert into organizations (id, name) values (${org}, 'Keys')`;
    for (const name of ['one', 'two']) {
      await db.admin`insert into credentials (id, organization_id, name, type, public_fields, secret_ciphertext, masks)
        values (${randomUUID()}, ${org}, ${name}, 'http_bearer', '{}', ${createSecretBox(keyA).encrypt(name)}, '{}')`;
    }
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('the API and the worker exit 1 with one line when APP_KEY opens none of the sealed values', async () => {
    const api = await run('services/api/src/main.ts', [], {
      ...databaseEnv,
      APP_KEY: env64(keyB),
      PORT: '0',
    });
    expect(api.code).toBe(1);
    expect(api.stderr.trim().split('\n')).toEqual([
      'weft api: APP_KEY opens none of the 2 sealed values sampled from the database ' +
        '(credentials.secret_ciphertext): start with the APP_KEY that sealed them, or list it in ' +
        'APP_KEYS_PREVIOUS (docs/key-custody.md)',
    ]);
    const worker = await run('services/worker/src/main.ts', [], {
      ...databaseEnv,
      APP_KEY: env64(keyB),
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(worker.code).toBe(1);
    expect(worker.stderr.trim().split('\n')).toHaveLength(1);
    expect(worker.stderr).toMatch(/^weft worker: APP_KEY opens none of the 2 sealed values/);
  });

  it('weft keys check and rotate: B with A previous re-seals both, then B alone passes and A is refused', async () => {
    const cli = 'services/cli/src/main.ts';
    const ring = { ...databaseEnv, APP_KEY: env64(keyB), APP_KEYS_PREVIOUS: ` ${env64(keyA)} ,` };
    const rotated = await run(cli, ['keys', 'rotate', '--json', '--batch-size', '1'], ring);
    expect(rotated.code).toBe(0);
    const report = JSON.parse(rotated.stdout) as {
      key_id: string;
      columns: Record<string, unknown>[];
      total: Record<string, number>;
    };
    expect(report.key_id).toBe(createSecretBox(keyB).currentKeyId);
    expect(report.total).toEqual({ scanned: 2, rotated: 2, already_current: 0, unreadable: 0 });
    expect(report.columns).toContainEqual({
      column: 'credentials.secret_ciphertext',
      scanned: 2,
      rotated: 2,
      already_current: 0,
      unreadable: 0,
    });

    const bAlone = await run(cli, ['keys', 'check', '--json'], { ...databaseEnv, APP_KEY: env64(keyB) });
    expect(bAlone.code).toBe(0);
    expect(JSON.parse(bAlone.stdout)).toEqual({
      sampled: 2,
      opened: 2,
      sources: ['credentials.secret_ciphertext'],
    });

    const aAlone = await run(cli, ['keys', 'check'], { ...databaseEnv, APP_KEY: env64(keyA) });
    expect(aAlone.code).toBe(1);
    expect(aAlone.stderr.trim().split('\n')).toHaveLength(1);
    expect(aAlone.stderr).toMatch(/^weft: APP_KEY opens none of the 2 sealed values/);
    // Three CLI processes in a row, each loading the whole CLI through tsx: slow on a busy 2-core box.
  }, 90_000);

  it('weft up says it once and exits 1 before starting Temporal, the API or the worker', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-keys-up-'));
    try {
      const { env } = await stackEnv(dataDir, { ...databaseEnv, APP_KEY: env64(randomBytes(32)) });
      const up = await run('services/cli/src/main.ts', ['up'], env as Record<string, string>);
      expect(up.code).toBe(1);
      expect(`${up.stdout}${up.stderr}`).toMatch(
        /failed to start: APP_KEY opens none of the 2 sealed values sampled from the database/,
      );
      expect(`${up.stdout}${up.stderr}`).not.toMatch(/starting the Temporal dev server|process layout/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a malformed APP_KEYS_PREVIOUS before touching anything', async () => {
    const bad = await run('services/cli/src/main.ts', ['keys', 'check'], {
      ...databaseEnv,
      APP_KEY: env64(keyB),
      APP_KEYS_PREVIOUS: `${env64(keyA)},base64:c2hvcnQ=`,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('APP_KEYS_PREVIOUS.1: must decode to 32 bytes');
  });
});

describe('the embedded PostgreSQL across an APP_KEY rotation', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'weft-keys-pg-'));
    // PostgreSQL may run as a separate system user (tests as root), which must reach the data dir.
    await chmod(dir, 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('moves onto the new key with the old one previous, and refuses a key it never had in one line', async () => {
    const port = await freePort();
    const envWith = (vars: Record<string, string>) =>
      loadEnv(CliEnv, { WEFT_DATA_DIR: dir, EMBEDDED_PG_PORT: String(port), ...vars });
    const open = async (vars: Record<string, string>) => (await openDatabase(envWith(vars))).stop();

    await open({ APP_KEY: env64(keyA) });
    await open({ APP_KEY: env64(keyB), APP_KEYS_PREVIOUS: env64(keyA) });
    // Moved: B alone now opens it, and A (dropped from the ring) no longer does.
    await open({ APP_KEY: env64(keyB) });
    await expect(open({ APP_KEY: env64(keyA) })).rejects.toThrow(
      /accepts the password of neither APP_KEY nor any key in APP_KEYS_PREVIOUS: start with the APP_KEY it was created with/,
    );
  }, 120_000);

  it('read-only commands after a rotation log in with the old passwords and change none (server stopped, then running)', async () => {
    const port = await freePort();
    const data = path.join(dir, 'read-only');
    const vars = { WEFT_DATA_DIR: data, EMBEDDED_PG_PORT: String(port) };
    const cli = 'services/cli/src/main.ts';
    const created = await run(cli, ['org', 'create', '--name', 'Rotated', '--json'], {
      ...vars,
      APP_KEY: env64(keyA),
    });
    expect(created.code, created.stderr).toBe(0);
    const org = (JSON.parse(created.stdout) as { id: string }).id;
    const rotated = { ...vars, APP_KEY: env64(keyB), APP_KEYS_PREVIOUS: env64(keyA) };
    /** Both roles still log in with A's passwords, so nothing ran ALTER ROLE. */
    const loginsUnderA = async () => {
      for (const [user, purpose] of [
        ['postgres', 'embedded-postgres/admin'],
        ['weft_app', 'embedded-postgres/app'],
      ] as const) {
        expect(await acceptedPassword(port, user, 'weft', [derivedSecret(keyA, purpose)])).toBeDefined();
        expect(await acceptedPassword(port, user, 'weft', [derivedSecret(keyB, purpose)])).toBeUndefined();
      }
    };
    // Stopped: the command starts the server itself (and stops it after).
    const listed = await run(cli, ['user', 'list', '--org', org, '--json'], rotated);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({ users: [] });
    const running = await openDatabase(envWith(data, port, { APP_KEY: env64(keyA) }), undefined, undefined, {
      readOnly: true,
    });
    try {
      await loginsUnderA();
      // Running (as under `weft up`): the command only connects.
      const again = await run(cli, ['user', 'list', '--org', org, '--json'], rotated);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ users: [] });
      await loginsUnderA();
    } finally {
      await running.stop();
    }
  }, 180_000);
});

const envWith = (dataDir: string, port: number, vars: Record<string, string>) =>
  loadEnv(CliEnv, { WEFT_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port), ...vars });
