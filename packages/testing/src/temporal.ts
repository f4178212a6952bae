import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '@weft/temporal';
import { DEV_SERVER_DYNAMIC_CONFIG } from '@weft/temporal/dev-server';

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

/**
 * A real Temporal dev server (the CLI's start-dev) on a free port, with Weft's search attributes;
 * or, in the cluster test run, the shared production server (its namespace set up by the same step
 * as every deployment).
 */
export function startTemporalDevServer(): Promise<TestWorkflowEnvironment> {
  const shared = process.env[SHARED_TEMPORAL_ENV];
  if (shared)
    return TestWorkflowEnvironment.createFromExistingServer({ address: shared, namespace: 'default' });
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalBinary('temporal') },
      searchAttributes: Object.values(SEARCH_ATTRIBUTES),
      extraArgs: [
        '--sqlite-pragma',
        'journal_mode=WAL',
        '--sqlite-pragma',
        'synchronous=OFF',
        ...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
      ],
    },
  });
}

/** The time-skipping test server (timers complete as soon as nothing else is running). */
export function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalBinary('temporal-test-server') } },
  });
}

let bundle: Promise<{ code: string }> | undefined;
/** The workflow bundle, built once per test process (webpack takes a second or two). */
export function workflowBundle(): Promise<{ code: string }> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: path.join(ROOT, 'temporal', 'workflows', 'index.ts'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  return bundle;
}
