import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reuseCachedBundle, storeBundle } from './bundle-cache';

/** A bundle as webpack writes it: code, then an inline source map naming its source files. */
function bundleOf(sources: string[], body = 'var __TEMPORAL__ = {};'): string {
  const map = Buffer.from(JSON.stringify({ version: 3, sources, mappings: '' })).toString('base64');
  return `${body}\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${map}`;
}

describe('the workflow bundle cache', () => {
  let dir: string;
  let source: string;
  let cache: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'weft-bundle-cache-'));
    source = path.join(dir, 'workflow.ts');
    cache = path.join(dir, 'cache');
    await writeFile(source, 'export const a = 1;');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('hands back the stored bundle while its sources are unchanged', async () => {
    const code = bundleOf([source, 'webpack/bootstrap', path.join(dir, 'generated-entrypoint.cjs')]);
    await storeBundle(code, cache);
    const out = path.join(dir, 'out', 'bundle.js');
    expect(await reuseCachedBundle(out, cache)).toBe(true);
    expect(await readFile(out, 'utf8')).toBe(code);
  });

  it('refuses it once a source file has changed or is gone, and writes nothing', async () => {
    await storeBundle(bundleOf([source]), cache);
    const out = path.join(dir, 'bundle.js');
    await writeFile(source, 'export const a = 2;');
    expect(await reuseCachedBundle(out, cache)).toBe(false);
    await rm(source);
    expect(await reuseCachedBundle(out, cache)).toBe(false);
    await expect(readFile(out)).rejects.toThrow();
  });

  it('refuses a stored bundle that does not match its manifest, and stores nothing without sources', async () => {
    await storeBundle(bundleOf([source]), cache);
    await writeFile(path.join(cache, 'workflow-bundle.js'), 'tampered');
    expect(await reuseCachedBundle(path.join(dir, 'bundle.js'), cache)).toBe(false);
    const empty = path.join(dir, 'empty');
    await storeBundle('var __TEMPORAL__ = {};', empty);
    expect(await reuseCachedBundle(path.join(dir, 'bundle.js'), empty)).toBe(false);
  });
});
