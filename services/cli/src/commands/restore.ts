import { existsSync } from 'node:fs';
import { cp, lchown, readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { runsAsRoot } from '@weft/db';
import { appKeyId } from '@weft/domain/admin';
import {
  BACKED_UP,
  entryPath,
  entrySource,
  MANIFEST_FILE,
  Manifest,
  refuseExternal,
  refuseWhileRunning,
} from '../backup-layout';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

/**
 * `weft restore --from <dir>`: puts a `weft backup` back in place with the stack stopped. The data
 * it replaces is renamed aside beside itself (`<name>.replaced-<time>`), never deleted; the next
 * `weft up` serves the backed-up state and its waiting executions carry on.
 */
export async function restoreCommand(options: { from: string; json: boolean }): Promise<void> {
  const env = loadCliEnv();
  refuseExternal(env, 'weft restore');
  refuseWhileRunning(env, 'weft restore');
  const source = path.resolve(options.from);
  const manifest = await readManifest(source);
  // A backup made before a rotation restores as long as its key is still in the ring: the next
  // `weft up` moves the embedded passwords onto APP_KEY, and the ring opens what the old key sealed.
  const ring = [env.APP_KEY, ...env.APP_KEYS_PREVIOUS].map(appKeyId);
  if (!ring.includes(manifest.app_key_id)) {
    throw new Error(
      `${source} was backed up with another APP_KEY (${manifest.app_key_id}; this ring holds ${ring.join(', ')}): ` +
        "set that installation's key as APP_KEY or in APP_KEYS_PREVIOUS, then restore",
    );
  }
  const started = performance.now();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const replaced: string[] = [];
  // Everything a backup may hold goes aside, so no file of the replaced state mixes with the restored one.
  for (const entry of BACKED_UP) {
    const current = entrySource(env, entry);
    if (!existsSync(current)) continue;
    const aside = `${current}.replaced-${stamp}`;
    await rename(current, aside);
    replaced.push(aside);
  }
  for (const entry of manifest.entries) {
    const target = entrySource(env, entry);
    await cp(entryPath(source, entry), target, { recursive: true, preserveTimestamps: true });
    // As root, PostgreSQL runs as the `postgres` user: the copy root just made must be its again.
    if (entry === 'postgres' && runsAsRoot()) await chownTree(target, manifest.postgres_owner);
  }
  const ms = Math.round(performance.now() - started);
  printResult(
    options.json,
    { restored: source, created_at: manifest.created_at, replaced, duration_ms: ms },
    [
      `Restored the backup of ${manifest.created_at} (Weft ${manifest.weft_version}) in ${ms} ms.`,
      ...replaced.map(
        (aside) => `The data it replaced is in ${aside} (delete it once the restore is checked).`,
      ),
      'Start Weft with `weft up`: migrations newer than the backup apply then.',
    ],
  );
}

async function chownTree(root: string, owner: { uid: number; gid: number }): Promise<void> {
  await lchown(root, owner.uid, owner.gid);
  for (const entry of await readdir(root, { recursive: true })) {
    await lchown(path.join(root, entry), owner.uid, owner.gid);
  }
}

async function readManifest(source: string): Promise<Manifest> {
  const file = path.join(source, MANIFEST_FILE);
  const text = await readFile(file, 'utf8').catch(() => {
    throw new Error(`${source} is not a weft backup: it has no ${MANIFEST_FILE}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a weft backup manifest this version reads`);
  for (const entry of parsed.data.entries) {
    if (!existsSync(entryPath(source, entry)))
      throw new Error(`${source} is incomplete: ${entry} is missing`);
  }
  return parsed.data;
}
