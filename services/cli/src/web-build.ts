import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './run-state';

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

/**
 * Builds the web app (vite build through pnpm) when stale; `weft up`, the test run and its set-up
 * call it. One build at a time per checkout: `./weft test` starts it early, alongside its other
 * start-up work, and the browser tests' set-up waits for that build instead of starting another.
 */
export async function ensureWebBuild(projectRoot: string, log: (line: string) => void): Promise<void> {
  if (!webBuildIsStale(projectRoot)) return;
  const release = await takeBuildLock(projectRoot, log);
  try {
    // Built by whoever held the lock before us.
    if (!webBuildIsStale(projectRoot)) return;
    await buildWeb(projectRoot, log);
  } finally {
    release();
  }
}

/** `web/.build-lock/` (mkdir is atomic) with the holder's pid; a dead holder's lock is taken over. */
export async function takeBuildLock(projectRoot: string, log: (line: string) => void): Promise<() => void> {
  const lock = path.join(projectRoot, 'web', '.build-lock');
  const owner = path.join(lock, 'pid');
  let said = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(owner, String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(existsSync(owner) ? readFileSync(owner, 'utf8') : Number.NaN);
    // No pid: the holder is between its mkdir and its write, or died there (then the lock is old).
    const dead = Number.isInteger(holder)
      ? !isAlive(holder)
      : Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 10_000;
    if (dead) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!said) log(`waiting for the web build under way (process ${holder})`);
    said = true;
    await sleep(250);
  }
}

function buildWeb(projectRoot: string, log: (line: string) => void): Promise<void> {
  log('building the web app (web/build)');
  return new Promise<void>((resolve, reject) => {
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
