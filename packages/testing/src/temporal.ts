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

/** A real Temporal dev server (the CLI's start-dev) on a free port, with Weft's search attributes. */
export function startTemporalDevServer(): Promise<TestWorkflowEnvironment> {
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
