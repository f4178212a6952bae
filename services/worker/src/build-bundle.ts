import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PRELOADED_WORKFLOW_MODULES, WORKFLOWS_PATH } from '@weft/temporal/bundle';
import { storeBundle } from './bundle-cache';

/**
 * Prebuilds the workflow bundle into a file (`node --import tsx build-bundle.ts <out.js>`), so the
 * long-running worker never loads webpack: about 250 MB less resident memory per worker.
 */
const out = process.argv[2];
if (!out) throw new Error('usage: build-bundle.ts <output file>');
const { code } = await bundleWorkflowCode({
  workflowsPath: WORKFLOWS_PATH,
  preloadModules: PRELOADED_WORKFLOW_MODULES,
  logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
});
await mkdir(path.dirname(path.resolve(out)), { recursive: true });
await writeFile(out, code);
// For the next start (bundle-cache.ts): a cache that cannot be written only costs the next build.
await storeBundle(code).catch((error: unknown) =>
  console.warn(`workflow bundle not cached: ${String(error)}`),
);
