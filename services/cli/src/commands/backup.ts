import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { appKeyId } from '@weft/domain/admin';
import {
  BACKED_UP,
  entryPath,
  entrySource,
  MANIFEST_FILE,
  type Manifest,
  refuseExternal,
  refuseWhileRunning,
} from '../backup-layout';
import { printResult } from '../output';
import { loadCliEnv, weftVersion } from '../project';

/**
 * `weft backup --to <dir>`: a cold copy of the embedded data (Weft's PostgreSQL cluster and
 * Temporal's state), taken with the stack stopped so that both are consistent with each other:
 * executions waiting in Temporal match the rows that describe them. Restore with `weft restore`.
 */
export async function backupCommand(options: { to: string; json: boolean }): Promise<void> {
  const env = loadCliEnv();
  refuseExternal(env, 'weft backup');
  refuseWhileRunning(env, 'weft backup');
  const target = path.resolve(options.to);
  if (existsSync(target) && (await readdir(target)).length > 0) {
    throw new Error(`${target} is not empty: give weft backup a new or empty directory`);
  }
  const started = performance.now();
  const entries = BACKED_UP.filter((entry) => existsSync(entrySource(env, entry)));
  if (!entries.includes('postgres')) {
    throw new Error(
      `nothing to back up: ${entrySource(env, 'postgres')} does not exist (has weft up run here?)`,
    );
  }
  await mkdir(target, { recursive: true, mode: 0o700 });
  for (const entry of entries) {
    await cp(entrySource(env, entry), entryPath(target, entry), {
      recursive: true,
      preserveTimestamps: true,
      // The pid file and a socket of the stopped server are not state (and a socket cannot be copied).
      filter: async (source) =>
        path.basename(source) !== 'postmaster.pid' && !(await lstat(source)).isSocket(),
    });
  }
  const manifest: Manifest = {
    format: 'weft-backup/1',
    created_at: new Date().toISOString(),
    weft_version: weftVersion(),
    app_key_id: appKeyId(env.APP_KEY),
    entries,
    postgres_owner: await stat(entrySource(env, 'postgres')).then((s) => ({ uid: s.uid, gid: s.gid })),
  };
  await writeFile(path.join(target, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o600,
  });
  const ms = Math.round(performance.now() - started);
  printResult(options.json, { backup: target, ...manifest, duration_ms: ms }, [
    `Backed up ${entries.join(', ')} to ${target} in ${ms} ms.`,
    'It restores only with this APP_KEY in the key ring (APP_KEY or APP_KEYS_PREVIOUS): keep the key with the backup, apart from it.',
  ]);
}
