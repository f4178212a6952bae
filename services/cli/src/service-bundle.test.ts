import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEntryPoint } from './service-bundle';

const run = promisify(execFile);

/** A small project in a temporary directory, laid out like a service: an entry, a module, a package. */
let project: string;
let dist: string;
const main = () => path.join(project, 'main.ts');

const MAIN = `import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { here, locate } from './lib/locate';

const beside = readFileSync(new URL('./data.txt', locate()), 'utf8').trim();
const parsed = z.object({ n: z.number() }).parse({ n: 1 });
if (process.argv[2] === 'missing') {
  // Loaded only when called, as under tsx (the image leaves out a package only weft up loads).
  await import('weft-package-not-installed');
}
if (process.argv[2] === 'throw') {
  throw new Error('thrown from the source');
}
console.log(JSON.stringify({ beside, here, parsed }));
`;

beforeAll(async () => {
  project = await mkdtemp(path.join(os.tmpdir(), 'weft-service-bundle-'));
  dist = path.join(project, 'dist');
  await mkdir(path.join(project, 'lib'));
  // Packages resolve as they would in a workspace package.
  await symlink(path.resolve(import.meta.dirname, '..', 'node_modules'), path.join(project, 'node_modules'));
  await writeFile(main(), MAIN);
  await writeFile(
    path.join(project, 'lib', 'locate.ts'),
    'export const locate = (): string => import.meta.url;\nexport const here: string = import.meta.dirname;\n',
  );
  await writeFile(path.join(project, 'lib', 'data.txt'), 'beside locate.ts\n');
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

async function runBundle(file: string, ...args: string[]) {
  return run(process.execPath, [file, ...args], { cwd: os.tmpdir() }).then(
    ({ stdout }) => ({ ok: true as const, stdout, stderr: '' }),
    (error: { stdout: string; stderr: string }) => ({ ok: false as const, ...error }),
  );
}

describe('service bundles', () => {
  it('runs the entry as one module: each module keeps its own location, packages stay outside', async () => {
    const first = await bundleEntryPoint(main(), dist);
    expect(first).toEqual({ file: path.join(dist, 'main.mjs'), built: true });
    const result = await runBundle(first.file);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      // lib/locate.ts's own URL, not the bundle's: data.txt is read from beside it.
      beside: 'beside locate.ts',
      here: path.join(project, 'lib'),
      parsed: { n: 1 },
    });
    const bundle = await readFile(path.join(dist, 'service.mjs'), 'utf8');
    // zod is imported from its installed file (relative to the bundle), not copied in.
    expect(bundle).toMatch(/from "\.\.\/[^"]*\/node_modules\/\.pnpm\/zod@[^"]+"/);
    expect(bundle).not.toContain('class ZodError');
  });

  it('names the TypeScript source and line in a stack trace', async () => {
    const { file } = await bundleEntryPoint(main(), dist);
    const result = await runBundle(file, 'throw');
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain('thrown from the source');
    const line = MAIN.split('\n').findIndex((text) => text.includes("throw new Error('thrown")) + 1;
    expect(result.stderr).toContain(`${main()}:${line}:`);
  });

  it('leaves a dynamic import of a package that is not installed to run time; a static one fails the build', async () => {
    const { file } = await bundleEntryPoint(main(), dist);
    const missing = await runBundle(file, 'missing');
    expect(missing.ok).toBe(false);
    expect(missing.stderr).toContain("Cannot find package 'weft-package-not-installed'");

    const broken = path.join(project, 'broken.ts');
    await writeFile(broken, "import 'weft-package-not-installed';\n");
    await expect(bundleEntryPoint(broken, path.join(project, 'broken-dist'))).rejects.toThrow(
      /Could not resolve "weft-package-not-installed"/,
    );
  });

  it('split (the CLI): a module imported lazily is a chunk of its own, loaded when used', async () => {
    const entry = path.join(project, 'commands.ts');
    await writeFile(
      entry,
      "if (process.argv[2] === 'lazy') console.log((await import('./lib/lazy')).lazyValue());\nelse console.log('eager');\n",
    );
    await writeFile(
      path.join(project, 'lib', 'lazy.ts'),
      "import { z } from 'zod';\nexport const lazyValue = () => JSON.stringify(z.object({ a: z.string() }).parse({ a: 'lazy' }));\n",
    );
    const splitDist = path.join(project, 'split-dist');
    const { file } = await bundleEntryPoint(entry, splitDist, { split: true });
    expect((await runBundle(file)).stdout.trim()).toBe('eager');
    expect((await runBundle(file, 'lazy')).stdout.trim()).toBe('{"a":"lazy"}');
    const chunks = (await readdir(splitDist)).filter((name) => /^chunk-.*\.mjs$/.test(name));
    expect(chunks).toHaveLength(1);
    expect(await readFile(path.join(splitDist, chunks[0] as string), 'utf8')).toContain('z.object(');
    expect(await readFile(path.join(splitDist, 'service.mjs'), 'utf8')).not.toContain('z.object(');
    // A lost chunk is a stale build.
    await rm(path.join(splitDist, chunks[0] as string));
    expect((await bundleEntryPoint(entry, splitDist, { split: true })).built).toBe(true);
  });

  it('is reused while its sources are unchanged, and rebuilt after an edit or a lost file', async () => {
    expect((await bundleEntryPoint(main(), dist)).built).toBe(false);

    await writeFile(path.join(project, 'lib', 'data.txt'), 'beside locate.ts\n');
    expect((await bundleEntryPoint(main(), dist)).built).toBe(false);

    await writeFile(
      path.join(project, 'lib', 'locate.ts'),
      "export const locate = (): string => import.meta.url;\nexport const here = 'edited';\n",
    );
    const edited = await bundleEntryPoint(main(), dist);
    expect(edited.built).toBe(true);
    expect(JSON.parse((await runBundle(edited.file)).stdout).here).toBe('edited');

    await rm(path.join(dist, 'service.mjs'));
    const restored = await bundleEntryPoint(main(), dist);
    expect(restored.built).toBe(true);
    expect(JSON.parse((await runBundle(restored.file)).stdout).here).toBe('edited');
  });
});
