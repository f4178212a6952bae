/**
 * The test runs of `./weft test` (after `svelte-kit sync`, which writes the files the web build and
 * svelte-check read): lint and typecheck (tsc and svelte-check) alongside (they write nothing; their
 * output is printed at the end), every vitest
 * suite (arguments are passed on to it as filters) and, on an unfiltered run, alongside them, the
 * engine's end-to-end cases on the production Temporal path (vitest.cluster.config.ts). temporal-server is
 * built from the Go module proxy; scripts/setup.sh starts that build in the background at the
 * beginning of `./weft test`, and the cluster step waits for it.
 * Without a Go toolchain (the set-up promise needs only Node, Python and git) the step says so in
 * one line and passes; WEFT_REQUIRE_TEMPORAL_CLUSTER=1 makes that a failure (CI machines have Go).
 * Last, every run (a filtered one too: its logs are as likely to leak) scans all its log files for
 * the secrets its tests created (scan-logs-for-secrets.ts); one found fails the run.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../services/cli/src/run-state';
import { ensureWebBuild } from '../services/cli/src/web-build';
import { ensureClusterBinaries, TEMPORAL_SERVER_VERSION } from '../temporal/cluster';
import { scanTestLogs } from './scan-logs-for-secrets';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = path.join(root, '.tools', 'temporal-server');

async function waitForBackgroundBuild(): Promise<void> {
  const pidFile = path.join(buildDir, 'build.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  if (!isAlive(pid)) return;
  console.log(
    `[cluster] waiting for the background temporal-server ${TEMPORAL_SERVER_VERSION} build (log: ${path.join(buildDir, 'build.log')})`,
  );
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 2000));
}

// Every test process's service log lines go under here (one file per test file; quiet-tests.ts),
// emptied first so the directory holds this run only.
const testLogs = path.resolve(root, process.env.WEFT_DATA_DIR ?? '.data', 'test-logs');
rmSync(testLogs, { recursive: true, force: true });
process.env.WEFT_TEST_LOG_DIR = testLogs;
console.log(`service logs of this run: ${path.relative(root, testLogs)}/ (a failing test prints its own)`);

/**
 * Lint and typecheck (`pnpm run check:code`: Biome, Prettier, tsc and svelte-check), run alongside
 * the tests: they only read, and most of a test run's first minute is spent waiting on servers to
 * start. Resolves to their exit status.
 */
function codeChecks(): Promise<number | null> {
  mkdirSync(testLogs, { recursive: true });
  const log = path.join(testLogs, 'code-checks.txt');
  const fd = openSync(log, 'w');
  console.log(
    `[checks] lint and typecheck run alongside (output: ${path.relative(root, log)}, shown at the end)`,
  );
  return new Promise((resolve, reject) => {
    // Below the tests, as the cluster run is: they have all the run to finish, the tests' first
    // minutes (the longest files, on a full machine) do not.
    const child = spawn('nice', ['-n', '10', 'pnpm', 'run', '--silent', 'check:code'], {
      cwd: root,
      stdio: ['ignore', fd, fd],
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      closeSync(fd);
      const output = readFileSync(log, 'utf8').trim();
      console.log(`\n[checks] lint and typecheck: ${code === 0 ? 'passed' : 'FAILED'}`);
      if (output) console.log(output);
      resolve(code);
    });
  });
}
const checks = codeChecks();

/**
 * Ends the run with `status` once lint and typecheck are done: 1 when they failed or a log of the
 * run holds a secret its tests created.
 */
async function finish(status: number | null): Promise<never> {
  const checked = await checks;
  const clean = scanTestLogs(testLogs);
  process.exit(status === 0 && (checked !== 0 || !clean) ? 1 : (status ?? 1));
}

/**
 * Runs `pnpm exec vitest run <args>` to the end: its exit status (null when killed). `niceness`
 * lowers its CPU priority (and its servers'), so that it takes the cores the other run leaves idle.
 */
function vitest(args: string[], output: 'inherit' | number, niceness = 0): Promise<number | null> {
  const pnpm = ['pnpm', 'exec', 'vitest', 'run', ...args];
  const [command = 'pnpm', ...rest] = niceness > 0 ? ['nice', '-n', String(niceness), ...pnpm] : pnpm;
  return new Promise((resolve, reject) => {
    const child = spawn(command, rest, {
      cwd: root,
      stdio: ['ignore', output, output],
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

/**
 * The engine's cases on the production Temporal server, or null when that step is skipped (said
 * in one line). Its output goes to `log`: it runs while the main suites print.
 */
async function clusterRun(log: string): Promise<number | null> {
  if (process.env.WEFT_SKIP_TEMPORAL_CLUSTER) {
    console.log(
      '[cluster] engine tests on the production Temporal server skipped (WEFT_SKIP_TEMPORAL_CLUSTER)',
    );
    return 0;
  }
  await waitForBackgroundBuild();
  try {
    await ensureClusterBinaries(root);
  } catch (error) {
    const line = `[cluster] engine tests on the production Temporal server not run: ${(error as Error).message}`;
    if (process.env.WEFT_REQUIRE_TEMPORAL_CLUSTER === '1') {
      console.error(line);
      return 1;
    }
    console.log(line);
    return 0;
  }
  const fd = openSync(log, 'w');
  try {
    // Below the main suites: their 30 s test timeouts are the tighter ones (the cluster's are 60 s).
    return await vitest(['-c', 'vitest.cluster.config.ts'], fd, 10);
  } finally {
    closeSync(fd);
  }
}

const filters = process.argv.slice(2);
if (filters.length > 0) await finish(await vitest(filters, 'inherit'));

// Unfiltered: the web app builds while vitest starts its servers; the browser tests' set-up waits
// for this build (a failure there is theirs to report).
ensureWebBuild(root, (line) => console.log(`[web] ${line}`)).catch(() => {});

// Unfiltered: the cluster step runs alongside the main suites instead of after them (most of
// either is waiting on servers, so the two share the cores well); its output follows theirs.
mkdirSync(testLogs, { recursive: true });
const clusterLog = path.join(testLogs, 'cluster-run.txt');
console.log(
  `[cluster] engine tests on the production Temporal server run alongside (output: ${path.relative(root, clusterLog)}, shown at the end)`,
);
const [main, cluster] = await Promise.all([vitest([], 'inherit'), clusterRun(clusterLog)]);
if (existsSync(clusterLog)) {
  console.log('\n[cluster] the engine tests on the production Temporal server:');
  process.stdout.write(readFileSync(clusterLog, 'utf8'));
}
await finish(main !== 0 ? main : cluster);
