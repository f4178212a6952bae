/**
 * Rewrites a package.json's `exports` map into an equivalent short one: the directory entries
 * (`./x` → `./x/index.js`) stay, and one subpath pattern (`./*` → `./*.js`, with the same
 * conditions) stands for all the file entries. Refuses to write unless every original subpath
 * resolves to exactly the same targets through the new map.
 *
 * Why (docs/decisions.md, "Start-up CPU"): Node 24 hands a package's whole `exports` text to
 * JavaScript for every module file it loads from that package. drizzle-orm lists 447 subpaths
 * (179 KB), and loading it cost ~0.5 s of CPU per process. Run it on the package's edit directory
 * when the drizzle patch is made again for a new version:
 *   pnpm patch drizzle-orm@<version> --edit-dir /tmp/drizzle
 *   node --import tsx scripts/compact-package-exports.ts /tmp/drizzle/package.json
 *   pnpm patch-commit /tmp/drizzle
 */
import { readFileSync, writeFileSync } from 'node:fs';

type Target = string | { [condition: string]: Target };

const file = process.argv[2];
if (!file) {
  console.error('usage: compact-package-exports.ts <package.json>');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(file, 'utf8')) as { exports?: Record<string, Target> };
const original = pkg.exports;
if (!original || typeof original !== 'object') {
  console.error(`${file} has no exports map`);
  process.exit(2);
}

const isDirectoryEntry = (key: string, target: Target) =>
  key === '.' || JSON.stringify(target).includes('/index.');

/** The target of `./<name>.*` files, taken from the first file entry and turned into a pattern. */
const fileEntry = Object.entries(original).find(([key, target]) => !isDirectoryEntry(key, target));
if (!fileEntry) {
  console.error('no file entries: nothing to compact');
  process.exit(2);
}
const [sampleKey, sampleTarget] = fileEntry;
const sampleName = sampleKey.slice(2);
const pattern = JSON.parse(JSON.stringify(sampleTarget).replaceAll(`./${sampleName}.`, './*.')) as Target;

const compact: Record<string, Target> = {};
for (const [key, target] of Object.entries(original)) {
  if (isDirectoryEntry(key, target)) compact[key] = target;
}
compact['./*'] = pattern;

const resolve = (key: string): Target =>
  compact[key] ?? (JSON.parse(JSON.stringify(pattern).replaceAll('*', key.slice(2))) as Target);
const mismatches = Object.keys(original).filter(
  (key) => JSON.stringify(resolve(key)) !== JSON.stringify(original[key]),
);
if (mismatches.length > 0) {
  console.error(
    `not equivalent for ${mismatches.length} subpaths, e.g. ${mismatches.slice(0, 5).join(', ')}`,
  );
  process.exit(1);
}
pkg.exports = compact;
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`${Object.keys(original).length} exports entries → ${Object.keys(compact).length}, same targets`);
