import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const MAIN = inject('cliBundle');
// Each run starts a CLI process: seconds on a busy machine, so the kill timeout and the tests'
// own timeouts (several runs each) are generous; a command that really ran would take minutes.
const weft = (...args: string[]) =>
  run(process.execPath, [MAIN, ...args], { timeout: 60_000 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

describe('weft usage', () => {
  it("prints a command's help for --help instead of running it, at once", async () => {
    // A bench runs for minutes and starts servers; `up` starts the whole stack: --help must do neither.
    for (const command of [
      ['bench', 'engine'],
      ['bench', 'api'],
      ['up'],
      ['user', 'create'],
      ['workflows', 'import'],
    ]) {
      const started = Date.now();
      const result = await weft(...command, '--help');
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout).toContain(`Usage: weft ${command.join(' ')} [options]`);
      expect(Date.now() - started).toBeLessThan(30_000);
    }
    const engine = await weft('bench', 'engine', '--help');
    expect(engine.stdout).toContain('--concurrency <list>');
    expect(engine.stdout).toContain('(default: [1,16,64])');
  }, 180_000);

  it('prints the version, and the command list without arguments', async () => {
    const version = await weft('--version');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const root = await weft('--help');
    for (const command of ['up', 'migrate', 'temporal', 'user', 'api-key', 'workflows', 'bench']) {
      expect(root.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    }
  }, 120_000);

  it('refuses unknown commands, unknown options and bad values with exit code 2 and one line', async () => {
    const unknown = await weft('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    const layout = await weft('bench', 'engine', '--layout', 'sideways');
    expect(layout.code).toBe(2);
    expect(layout.stderr).toContain('Allowed choices are combined, split');
    const negative = await weft('bench', 'api', '--workflows', '-3');
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain('must be a whole number of 1 or more');
    const argvPassword = await weft(
      'user',
      'create',
      '--org',
      'o',
      '--email',
      'e@example.com',
      '--password',
      'x',
    );
    expect(argvPassword.code).toBe(2);
    expect(argvPassword.stderr).toContain("unknown option '--password'");
    const missing = await weft('api-key', 'create', '--org', 'o');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--name <name>' not specified");
  }, 180_000);
});
