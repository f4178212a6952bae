import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freeLoopbackPort as freePort } from '@weft/config';
import { getLogger } from '@weft/telemetry';
import { PRELOADED_WORKFLOW_MODULES, WORKFLOWS_PATH } from '@weft/temporal/bundle';
import { startDevServer } from '@weft/temporal/dev-server';
import { installTemporalRuntime } from '@weft/worker';
import { inject } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The binaries scripts/setup.sh installs; the SDK must never download its own. */
export function temporalBinary(name: 'temporal' | 'temporal-test-server'): string {
  const fromEnv = name === 'temporal' ? process.env.TEMPORAL_CLI : undefined;
  const file = fromEnv ?? path.join(ROOT, '.tools', 'temporal-venv', 'bin', name);
  if (!existsSync(file))
    throw new Error(`${file} is missing: run ./weft once (it installs the Temporal binaries)`);
  return file;
}

/**
 * Set by the cluster test run's global set-up (vitest.cluster.config.ts): the production Temporal
 * server those tests share instead of a dev server each.
 */
export const SHARED_TEMPORAL_ENV = 'WEFT_TEST_TEMPORAL_ADDRESS';

let runtimeInstalled = false;
/**
 * The SDK's logs (a failed activity, a workflow task retried) through the test process's logger
 * (quiet-tests.ts: a file, and the console vitest prints for a failing test only) rather than the
 * SDK's default logger, which writes to the terminal. Before any connection: one runtime per process.
 */
function installTestRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    installTemporalRuntime({ logger: getLogger('temporal'), level: 'warn' });
  } catch {
    // A test file that connected before this keeps the default runtime.
  }
}

/**
 * A real Temporal dev server: the run's shared one (engine-setup.ts), or, in the cluster test run,
 * the shared production server (its namespace set up by the same step as every deployment). With
 * `ownServer`, or outside a run that provides one, a dev server of its own (the CLI's start-dev) on
 * a free port, with Weft's search attributes: for files whose workers act on every schedule or
 * task queue of the server.
 */
export async function startTemporalDevServer(
  options: { ownServer?: boolean } = {},
): Promise<TestWorkflowEnvironment> {
  installTestRuntime();
  const shared =
    process.env[SHARED_TEMPORAL_ENV] ?? (options.ownServer ? undefined : inject('temporalAddress'));
  if (shared)
    return TestWorkflowEnvironment.createFromExistingServer({ address: shared, namespace: 'default' });
  // Started by our launcher rather than the SDK's createLocal, whose server writes its banner and
  // log to the test run's terminal: here the lines go to the console, which vitest prints for a
  // failing test only.
  const server = await startDevServer({
    cli: temporalBinary('temporal'),
    port: await freePort(),
    namespace: 'default',
    sqliteSynchronous: 'OFF',
    log: (line) => console.log(`[temporal dev server] ${line}`),
  });
  const env = await TestWorkflowEnvironment.createFromExistingServer({
    address: server.address,
    namespace: 'default',
  });
  const teardown = env.teardown.bind(env);
  env.teardown = async () => {
    await teardown();
    await server.stop();
  };
  return env;
}

/** The time-skipping test server (timers complete as soon as nothing else is running). */
export function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  installTestRuntime();
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalBinary('temporal-test-server') } },
  });
}

/** Builds the workflow bundle (webpack: seconds of CPU). */
export function buildWorkflowBundle(): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    preloadModules: PRELOADED_WORKFLOW_MODULES,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
}

let bundle: Promise<{ code: string }> | undefined;
/**
 * The workflow bundle: the one the run's global set-up built (engine-setup.ts), or built once per
 * test process where none was.
 */
export function workflowBundle(): Promise<{ code: string }> {
  const built = inject('workflowBundlePath');
  bundle ??= built ? readFile(built, 'utf8').then((code) => ({ code })) : buildWorkflowBundle();
  return bundle;
}
