import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printLogsOnFailure, runWeft, stackEnv, stackTraceLines } from './weft-process';

/**
 * What `weft up` does when it cannot start: one line that says what to do, exit code 1, no stack
 * trace, nothing left running and nothing touched. None of these starts a stack; the last one
 * starts only the embedded PostgreSQL (through `weft migrate`) from a directory other users cannot enter.
 */

let dir: string;
const isRoot = process.getuid?.() === 0;

/** Whether this machine lets the test mount a tmpfs (root with CAP_SYS_ADMIN: a real full or read-only disk). */
function canMount(): boolean {
  if (!isRoot) return false;
  const probe = path.join(os.tmpdir(), `weft-mount-probe-${process.pid}`);
  try {
    execFileSync('mkdir', ['-p', probe]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    execFileSync('rm', ['-rf', probe]);
  }
}
const mountable = canMount();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'weft-up-startup-'));
  // mkdtemp makes it 700; the embedded PostgreSQL (the postgres user, when root) must reach the data dirs.
  await chmod(dir, 0o755);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `weft up` to its exit; its output is logged under the test's directory. */
async function upFails(name: string, env: NodeJS.ProcessEnv) {
  const logFile = path.join(dir, `${name}.log`);
  printLogsOnFailure(logFile);
  const run = runWeft(['up'], env, logFile);
  const code = await run.exited;
  const lines = run.output().trim().split('\n');
  return { code, lines, output: run.output() };
}

describe('weft up refuses to start, with one line', () => {
  let taken: Server;
  let takenPort: number;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it.each([
    ['PORT', 'the web app and API'],
    ['EMBEDDED_PG_PORT', 'PostgreSQL'],
    ['TEMPORAL_PORT', 'Temporal'],
  ])(
    'when %s is taken by another program',
    async (variable, what) => {
      const dataDir = path.join(dir, `port-${variable}`);
      const { env } = await stackEnv(dataDir, { [variable]: String(takenPort) });
      const { code, lines, output } = await upFails(`port-${variable}`, env);
      expect(code).toBe(1);
      expect(lines).toEqual([
        `weft: port ${takenPort} (${variable}, ${what}) is already in use by another program: stop it or set ${variable} to a free port`,
      ]);
      expect(stackTraceLines(output)).toEqual([]);
      // It took the data directory only to check, and gave it back.
      expect(existsSync(path.join(dataDir, 'weft-up.json'))).toBe(false);
    },
    60_000,
  );

  it('when another `weft up` holds the data directory (its pid is alive), and leaves its file alone', async () => {
    const dataDir = path.join(dir, 'held');
    await mkdir(dataDir);
    const { env } = await stackEnv(dataDir);
    // This test process stands in for the running `weft up`: a live pid is all the check asks.
    const holder = {
      pid: process.pid,
      started_at: '2025-01-01T00:00:00.000Z',
      app_url: 'http://127.0.0.1:3999',
      ports: { app: 3999, postgres: 54999, temporal: 27999 },
      processes: {},
    };
    const file = path.join(dataDir, 'weft-up.json');
    await writeFile(file, JSON.stringify(holder));
    const { code, lines } = await upFails('held', env);
    expect(code).toBe(1);
    expect(lines).toEqual([
      `weft: Weft is already running (pid ${process.pid}, app http://127.0.0.1:3999, PostgreSQL port 54999, Temporal port 27999, since 2025-01-01T00:00:00.000Z); stop it first (Ctrl-C in its terminal, or kill ${process.pid})`,
    ]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(holder);
  }, 60_000);

  it('when the data directory cannot be created (a file is in the way)', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, '');
    const dataDir = path.join(file, 'data');
    const { env } = await stackEnv(dataDir);
    const { code, lines } = await upFails('not-a-dir', env);
    expect(code).toBe(1);
    expect(lines).toEqual([
      `weft: the data directory ${dataDir} cannot be created: part of that path is a file (ENOTDIR); set WEFT_DATA_DIR to a directory this user can write`,
    ]);
  }, 60_000);

  it.runIf(mountable || !isRoot)(
    'when the data directory is not writable',
    async () => {
      const dataDir = path.join(dir, 'read-only');
      await mkdir(dataDir);
      // Root writes through permission bits, so for root the disk itself is read-only.
      if (mountable) execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=256m', 'tmpfs', dataDir]);
      else await chmod(dataDir, 0o555);
      try {
        const { env } = await stackEnv(dataDir);
        const { code, lines } = await upFails('read-only', env);
        expect(code).toBe(1);
        expect(lines).toEqual([
          mountable
            ? `weft: the data directory ${dataDir} is on a read-only file system: set WEFT_DATA_DIR to a directory this user can write`
            : `weft: the data directory ${dataDir} is not writable by this user (EACCES): fix its permissions or set WEFT_DATA_DIR to a directory this user can write`,
        ]);
      } finally {
        if (mountable) execFileSync('umount', [dataDir]);
        else await chmod(dataDir, 0o755);
      }
    },
    60_000,
  );

  it.runIf(mountable)(
    'when the disk of the data directory is full',
    async () => {
      const dataDir = path.join(dir, 'full');
      await mkdir(dataDir);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dataDir]);
      try {
        const { env } = await stackEnv(dataDir);
        const { code, lines } = await upFails('full', env);
        expect(code).toBe(1);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(
            `^weft: the disk of the data directory ${dataDir} is full \\(1\\.0 MB free, PostgreSQL and Temporal need at least 64\\.0 MB\\): free some space or set WEFT_DATA_DIR to another disk$`,
          ),
        );
      } finally {
        execFileSync('umount', [dataDir]);
      }
    },
    60_000,
  );
});

describe('embedded PostgreSQL from a directory other users cannot enter', () => {
  it.runIf(isRoot)(
    'as root, starts anyway: its data goes to /var/lib/weft, which the postgres user reaches',
    async () => {
      const home = path.join(dir, 'private-home');
      await mkdir(home);
      await chmod(home, 0o700); // like /root
      const dataDir = path.join(home, 'checkout', '.data');
      const relocated = path.join(
        '/var/lib/weft',
        `postgres-${createHash('sha256').update(path.join(dataDir, 'postgres')).digest('hex').slice(0, 12)}`,
      );
      const logFile = path.join(dir, 'private-home.log');
      printLogsOnFailure(logFile);
      try {
        const { env } = await stackEnv(dataDir);
        // `weft migrate` starts the embedded PostgreSQL exactly as `weft up` does, migrates, stops it.
        const run = runWeft(['migrate', '--json'], env, logFile);
        expect(await run.exited).toBe(0);
        expect(JSON.parse(run.output().slice(run.output().indexOf('{')))).toMatchObject({ migrated: true });
        expect(existsSync(path.join(relocated, 'PG_VERSION'))).toBe(true);
        expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(false);
      } finally {
        await rm(relocated, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
