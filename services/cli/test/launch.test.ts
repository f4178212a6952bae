import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * services/cli/launch.mjs, what `./weft` runs, in a copy beside a stand-in CLI: its bundle is
 * reused while the manifest's hashes hold, rebuilt (through tsx) when a source changed, and the
 * sources run through tsx when the build fails. A command's stdout stays its own (`--json`), and
 * its exit code is the launcher's.
 */
const run = promisify(execFile);
let dir: string;

// The stand-in build: counts its runs, fails when asked, writes dist/main.mjs and the manifest of
// the one source it "bundles", as service-bundle.ts does.
const BUILD = `import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
const root = new URL('../', import.meta.url);
appendFileSync(new URL('builds.log', root), 'build\\n');
const source = new URL('src/main.ts', root);
const text = readFileSync(source, 'utf8');
if (text.includes('BROKEN')) { console.error('build failed: BROKEN'); process.exit(1); }
mkdirSync(new URL('dist/', root), { recursive: true });
writeFileSync(new URL('dist/main.mjs', root), text.replace('SOURCE', 'BUNDLE'));
const hash = createHash('sha256').update(text).digest('hex');
writeFileSync(new URL('dist/manifest.json', root), JSON.stringify({ files: { [source.pathname]: hash } }));
process.stderr.write('weft: CLI bundle built\\n');
`;
const MAIN = `const args = process.argv.slice(2);
console.log(JSON.stringify({ from: 'SOURCE', args }));
process.exitCode = args.includes('fail') ? 3 : 0;
`;

async function launch(...args: string[]) {
  return run(process.execPath, [path.join(dir, 'launch.mjs'), ...args], { cwd: os.tmpdir() }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}
const builds = async () =>
  (await readFile(path.join(dir, 'builds.log'), 'utf8').catch(() => '')).split('\n').length - 1;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'weft-launch-'));
  await mkdir(path.join(dir, 'src'));
  await copyFile(path.resolve(import.meta.dirname, '../launch.mjs'), path.join(dir, 'launch.mjs'));
  // tsx is the workspace root's, as the launcher finds it from services/cli/.
  await symlink(path.resolve(import.meta.dirname, '../../../node_modules'), path.join(dir, 'node_modules'));
  await writeFile(path.join(dir, 'src', 'build-cli-bundle.ts'), BUILD);
  await writeFile(path.join(dir, 'src', 'main.ts'), MAIN);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('./weft (services/cli/launch.mjs)', () => {
  it('builds the bundle when there is none, then runs it: stdout is the command’s alone', async () => {
    const first = await launch('org', 'list', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ from: 'BUNDLE', args: ['org', 'list', '--json'] });
    expect(first.stderr).toContain('weft: CLI bundle built');
    expect(await builds()).toBe(1);
  });

  it('reuses it while the sources are unchanged, and passes the exit code on', async () => {
    const again = await launch('fail');
    expect(again.code).toBe(3);
    expect(JSON.parse(again.stdout).from).toBe('BUNDLE');
    expect(await builds()).toBe(1);
  });

  it('rebuilds after an edit', async () => {
    await writeFile(path.join(dir, 'src', 'main.ts'), MAIN.replace("'SOURCE'", "'SOURCE' + ' edited'"));
    expect(JSON.parse((await launch()).stdout).from).toBe('BUNDLE edited');
    expect(await builds()).toBe(2);
  });

  it('runs the sources through tsx when the build fails', async () => {
    await writeFile(path.join(dir, 'src', 'main.ts'), `// BROKEN for the build only\n${MAIN}`);
    const fallback = await launch('x');
    expect(fallback.code).toBe(0);
    expect(JSON.parse(fallback.stdout)).toEqual({ from: 'SOURCE', args: ['x'] });
    expect(fallback.stderr).toContain('running the sources through tsx');
  });
});
