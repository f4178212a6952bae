import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The newest modification time under `dir` (files only). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** True when web/build is missing or older than any source of the web app. */
export function webBuildIsStale(projectRoot: string): boolean {
  const web = path.join(projectRoot, 'web');
  const handler = path.join(web, 'build', 'handler.js');
  if (!existsSync(handler)) return true;
  const built = statSync(handler).mtimeMs;
  const sources = [
    newestMtime(path.join(web, 'src')),
    newestMtime(path.join(web, 'static')),
    ...['package.json', 'svelte.config.js', 'vite.config.ts'].map((f) => statSync(path.join(web, f)).mtimeMs),
  ];
  return Math.max(...sources) > built;
}

/** Builds the web app (vite build through pnpm) when stale; `weft up` and the test set-up call it. */
export async function ensureWebBuild(projectRoot: string, log: (line: string) => void): Promise<void> {
  if (!webBuildIsStale(projectRoot)) return;
  log('building the web app (web/build)');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('pnpm', ['--filter', '@weft/web', 'run', 'build'], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`the web build failed (exit ${code}):\n${output.slice(-4000)}`)),
    );
  });
}
