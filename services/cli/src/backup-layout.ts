import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CliEnv } from '@weft/config';
import { reachableDataDir } from '@weft/db';
import { z } from 'zod';
import { dataPath } from './project';
import { isAlive, RUN_STATE_FILE } from './run-state';

/**
 * What `weft backup` copies out of WEFT_DATA_DIR and `weft restore` puts back: the embedded
 * PostgreSQL cluster (Weft's database, and Temporal's two databases under `weft up --temporal
 * cluster`) and the dev server's SQLite file. Logs, the workflow bundle and the run-state file are
 * rebuilt at start and stay out.
 */
export const BACKED_UP = ['postgres', 'temporal.db', 'temporal.db-wal', 'temporal.db-shm'] as const;

export const MANIFEST_FILE = 'weft-backup.json';

export const Manifest = z.object({
  format: z.literal('weft-backup/1'),
  created_at: z.string(),
  weft_version: z.string(),
  /**
   * The key ring's id of the APP_KEY at backup time (appKeyId, the id every sealed value names): the
   * embedded database's passwords and every sealed credential derive from that key.
   */
  app_key_id: z.string(),
  entries: z.array(z.enum(BACKED_UP)).min(1),
  /** Owner of the PostgreSQL files (as root, the `postgres` user): a restore as root gives them back. */
  postgres_owner: z.object({ uid: z.number().int(), gid: z.number().int() }),
});
export type Manifest = z.infer<typeof Manifest>;

/**
 * A copy of files is consistent only while nothing writes them, so both commands refuse while the
 * data directory is in use: by `weft up` (its run-state file names a live process) or by a
 * PostgreSQL server on its own (postmaster.pid names a live process, e.g. a `weft migrate` running).
 */
export function refuseWhileRunning(env: CliEnv, command: string): void {
  const owner = livePid(dataPath(env, RUN_STATE_FILE), (text) => (JSON.parse(text) as { pid: number }).pid);
  const postmaster = livePid(path.join(entrySource(env, 'postgres'), 'postmaster.pid'), (text) =>
    Number(text.split('\n')[0]),
  );
  const pid = owner ?? postmaster;
  if (pid !== undefined) {
    throw new Error(
      `${command} needs the stack stopped: ${owner ? '`weft up`' : 'PostgreSQL'} is running on ${dataPath(env)} ` +
        `(pid ${pid}); stop it first (Ctrl-C in its terminal, or kill ${pid})`,
    );
  }
}

function livePid(file: string, read: (text: string) => number): number | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const pid = read(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** External databases are backed up with their own tools; the procedure is in docs/backup-restore.md. */
export function refuseExternal(env: CliEnv, command: string): void {
  if (env.DATABASE_URL || env.TEMPORAL_ADDRESS) {
    throw new Error(
      `${command} copies the embedded data in WEFT_DATA_DIR; with DATABASE_URL or TEMPORAL_ADDRESS set, ` +
        'back up those servers with pg_dump as docs/backup-restore.md describes',
    );
  }
}

export const entryPath = (root: string, entry: string) => path.join(root, entry);

/**
 * Where an entry lives in this installation: in WEFT_DATA_DIR, except PostgreSQL's data directory
 * that, as root, may live under /var/lib/weft (see reachableDataDir).
 */
export const entrySource = (env: CliEnv, entry: string) =>
  entry === 'postgres' ? reachableDataDir(dataPath(env, 'postgres')).dataDir : dataPath(env, entry);
