import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort as freePort } from '@weft/config';
import { startDevServer } from '@weft/temporal/dev-server';
import { reuseCachedBundle, storeBundle } from '@weft/worker/bundle-cache';
import type { TestProject } from 'vitest/node';
import { acquireShared } from './shared-service';
import { buildWorkflowBundle, temporalBinary } from './temporal';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared Temporal dev server (startTemporalDevServer connects to it). */
    temporalAddress: string;
    /** The workflow bundle, built once for the run (workflowBundle reads it). */
    workflowBundlePath: string;
  }
}

/**
 * Vitest global set-up of the projects that run the engine: one Temporal dev server and one
 * workflow bundle for the whole run, instead of a server and a webpack build per test file. Test
 * files share the server through unique task queues (createEngineHarness); a file that needs a
 * server of its own (its workers reconcile every schedule on it) asks for one.
 */
export default async function setup(project: TestProject) {
  const [temporal, bundle] = await Promise.all([
    acquireShared('temporal', startSharedDevServer),
    acquireShared('workflow-bundle', writeWorkflowBundle),
  ]);
  project.provide('temporalAddress', temporal.value);
  project.provide('workflowBundlePath', bundle.value);
  return async () => {
    await Promise.all([temporal.release(), bundle.release()]);
  };
}

async function startSharedDevServer() {
  // Its lines are shown only if it fails to start (the error carries the reason).
  const lines: string[] = [];
  const server = await startDevServer({
    cli: temporalBinary('temporal'),
    port: await freePort(),
    namespace: 'default',
    sqliteSynchronous: 'OFF',
    log: (line) => {
      lines.push(line);
      if (lines.length > 200) lines.shift();
    },
  }).catch((error: unknown) => {
    console.error(`[temporal dev server] ${lines.slice(-40).join('\n')}`);
    throw error;
  });
  return { value: server.address, stop: () => server.stop() };
}

async function writeWorkflowBundle() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weft-test-bundle-'));
  const file = path.join(dir, 'workflows.js');
  // The cache `weft up` uses (bundle-cache.ts): a run after an unchanged one skips webpack, and
  // the first `weft up` of a fresh clone's run reuses this build.
  if (!(await reuseCachedBundle(file).catch(() => false))) {
    const { code } = await buildWorkflowBundle();
    await writeFile(file, code);
    await storeBundle(code).catch(() => undefined);
  }
  return { value: file, stop: () => rm(dir, { recursive: true, force: true }) };
}
