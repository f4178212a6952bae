import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/main.ts');
const weft = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', MAIN, ...args], { timeout: 20_000 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

describe('weft usage', () => {
  it('prints the usage for --help after a command instead of running it', async () => {
    // A bench runs for minutes and starts servers: --help must not start one.
    const started = Date.now();
    const result = await weft('bench', 'engine', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('./weft bench engine');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('refuses an unknown command or layout with exit code 2', async () => {
    const unknown = await weft('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const layout = await weft('bench', 'engine', '--layout', 'sideways');
    expect(layout.code).toBe(2);
    expect(layout.stderr).toContain('--layout must be combined or split');
  });
});
