import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { takeBuildLock } from './web-build';

const roots: string[] = [];
function projectRoot(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'weft-web-lock-'));
  mkdirSync(path.join(root, 'web'));
  roots.push(root);
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('the web build lock', () => {
  it('lets one build run at a time: the second waits until the first is done', async () => {
    const root = projectRoot();
    const order: string[] = [];
    const first = await takeBuildLock(root, () => {});
    const lines: string[] = [];
    const second = takeBuildLock(root, (line) => lines.push(line)).then((release) => {
      order.push('second');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    order.push('first done');
    first();
    (await second)();
    expect(order).toEqual(['first done', 'second']);
    expect(lines).toEqual([`waiting for the web build under way (process ${process.pid})`]);
  });

  it('takes over the lock of a process that died holding it', async () => {
    const root = projectRoot();
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.once('exit', resolve));
    mkdirSync(path.join(root, 'web', '.build-lock'));
    writeFileSync(path.join(root, 'web', '.build-lock', 'pid'), String(child.pid));
    const release = await takeBuildLock(root, () => {});
    expect(readFileSync(path.join(root, 'web', '.build-lock', 'pid'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(path.join(root, 'web', '.build-lock'))).toBe(false);
  });
});
