import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// web/ talks to the server only over HTTP through the generated client, and imports only pure
// packages. Biome checks the .ts files; this checks every source file, .svelte included.

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
const ALLOWED = [
  /^\.{1,2}\//,
  /^\$(lib|api|app)(\/|$)/,
  /^svelte(\/|$)/,
  /^@sveltejs\/kit(\/|$)/,
  /^@weft\/graph(\/|$)/,
  /^(openapi-fetch|chart\.js|jsondiffpatch|qrcode|@dagrejs\/dagre|croner|cronstrue)$/,
  /^@xyflow\/svelte(\/|$)/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.(ts|svelte)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

export function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:^|\n)\s*import\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/g)].map(
    (m) => m[1] as string,
  );
}

describe('web/ import boundaries', () => {
  it('imports only the generated client, pure packages and browser libraries', () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(20);
    const offending = files.flatMap((file) =>
      importsOf(readFileSync(file, 'utf8'))
        .filter((spec) => !ALLOWED.some((rule) => rule.test(spec)))
        .map((spec) => `${path.relative(SRC, file)}: ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('the check sees a forbidden import', () => {
    const found = importsOf("import { schema } from '@weft/db';\nimport type { X } from 'svelte';");
    expect(found.filter((spec) => !ALLOWED.some((rule) => rule.test(spec)))).toEqual(['@weft/db']);
  });
});
