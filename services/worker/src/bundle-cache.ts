import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A cache of the workflow bundle, so that a `weft up` whose workflow code has not changed skips
 * webpack (seconds of CPU per start). The bundle's inline source map names every file it was built
 * from (absolute paths); the cache is used only while each of those files has the content it had.
 * Webpack's own and generated modules (no file) depend only on this module's and build-bundle.ts's
 * options, which are part of the key, as is the bundler's version.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'weft-workflow-bundle');
const bundleIn = (dir: string) => path.join(dir, 'workflow-bundle.js');
const manifestIn = (dir: string) => path.join(dir, 'manifest.json');
/** Files whose change changes the bundle without being one of its sources. */
const BUILD_INPUTS = [
  path.join(import.meta.dirname, 'build-bundle.ts'),
  // The bundle options (the preloaded modules) live there.
  path.join(ROOT, 'temporal', 'bundle.ts'),
  path.join(import.meta.dirname, '..', 'node_modules', '@temporalio', 'worker', 'package.json'),
  path.join(ROOT, 'pnpm-lock.yaml'),
];

interface Manifest {
  /** sha256 of each source file and build input, by absolute path. */
  files: Record<string, string>;
}

/**
 * sha256 of a file's content (hex); undefined when it cannot be read. The build caches (this one,
 * and the service bundles' in services/cli/src/service-bundle.ts) key on it.
 */
export async function sha256File(file: string): Promise<string | undefined> {
  try {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  } catch {
    return undefined;
  }
}

/** The files a bundle was built from, read from its inline source map. */
function sourceFiles(code: string): string[] {
  const marker = code.lastIndexOf('sourceMappingURL=data:application/json');
  if (marker === -1) return [];
  const data = code.slice(code.indexOf('base64,', marker) + 'base64,'.length).trim();
  const map = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { sources?: string[] };
  return (map.sources ?? []).filter((source) => path.isAbsolute(source) && existsSync(source));
}

/** Whether every file still has the sha256 recorded for it (one that cannot be read has not). */
export async function filesUnchanged(files: Record<string, string>): Promise<boolean> {
  const entries = Object.entries(files);
  const hashes = await Promise.all(entries.map(([file]) => sha256File(file)));
  return entries.every(([, hash], i) => hashes[i] === hash);
}

/**
 * Copies the cached bundle to `out` when every file it was built from is unchanged; false (and
 * nothing written) otherwise.
 */
export async function reuseCachedBundle(out: string, dir = CACHE_DIR): Promise<boolean> {
  const bundle = bundleIn(dir);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestIn(dir), 'utf8')) as Manifest;
  } catch {
    return false;
  }
  const files = Object.entries(manifest.files).filter(([file]) => file !== bundle);
  if (files.length === 0 || !(await filesUnchanged(Object.fromEntries(files)))) return false;
  // The manifest names the bundle by its hash: one that another start has replaced since is refused.
  const code = await readFile(bundle).catch(() => undefined);
  if (!code || createHash('sha256').update(code).digest('hex') !== manifest.files[bundle]) return false;
  await mkdir(path.dirname(path.resolve(out)), { recursive: true });
  await writeFile(out, code);
  return true;
}

/** Stores a freshly built bundle for the next start (written aside, then renamed into place). */
export async function storeBundle(code: string, dir = CACHE_DIR): Promise<void> {
  const [bundle, manifest] = [bundleIn(dir), manifestIn(dir)];
  const sources = sourceFiles(code);
  if (sources.length === 0) return;
  const entries = await Promise.all(
    [...sources, ...BUILD_INPUTS].map(async (file) => [file, await sha256File(file)] as const),
  );
  if (entries.some(([, hash]) => hash === undefined)) return;
  const files = Object.fromEntries(entries) as Record<string, string>;
  files[bundle] = createHash('sha256').update(code).digest('hex');
  await mkdir(dir, { recursive: true });
  const suffix = `.${process.pid}.tmp`;
  await writeFile(bundle + suffix, code);
  await writeFile(manifest + suffix, JSON.stringify({ files } satisfies Manifest));
  await rename(bundle + suffix, bundle);
  await rename(manifest + suffix, manifest);
}
