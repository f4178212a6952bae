import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Our drizzle patch (patches/drizzle-orm@*.patch) also shortens drizzle's `exports` map, because
 * Node 24 hands the whole map to JavaScript for every drizzle module it loads: 447 entries cost
 * ~0.5 s of CPU per process start (docs/decisions.md, "Start-up CPU"). A drizzle upgrade whose
 * patch forgot it fails here; scripts/compact-package-exports.ts makes the map again.
 */
const require = createRequire(import.meta.url);
const packageRoot = path.dirname(
  path.dirname(require.resolve('drizzle-orm/postgres-js')), // <root>/postgres-js/index.cjs
);
const exportsMap = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')).exports as Record<
  string,
  unknown
>;

describe("drizzle-orm's exports map", () => {
  it('is the short one: directories listed, files by one pattern', () => {
    expect(Object.keys(exportsMap).length).toBeLessThan(100);
    expect(exportsMap['./*']).toBeDefined();
  });

  it('still resolves a directory, a file and the package itself, for import and require', async () => {
    for (const subpath of [
      'drizzle-orm',
      'drizzle-orm/pg-core',
      'drizzle-orm/sql/sql',
      'drizzle-orm/entity',
    ]) {
      expect(import.meta.resolve(subpath)).toMatch(/\.js$/);
      expect(require.resolve(subpath)).toMatch(/\.cjs$/);
    }
    const { sql } = await import('drizzle-orm/sql/sql');
    expect(typeof sql).toBe('function');
  });
});
