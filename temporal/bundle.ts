import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The module workflows are bundled from (temporal/workflows/index.ts). */
export const WORKFLOWS_PATH = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'workflows',
  'index.ts',
);

/**
 * Modules evaluated once per workflow VM and shared by every workflow run in it, instead of once
 * per run (the SDK's `preloadModules`; the per-run module evaluation was ~0.5 ms of CPU per
 * execution in `weft bench engine`). Only pure modules may be listed: no module-level state that
 * belongs to one run. Both packages hold plain functions and constant tables (the template parse
 * cache is a pure memo), and their workflow-side node code reaches `@temporalio/workflow`, whose
 * functions find the current run through the VM's activator at call time.
 */
export const PRELOADED_WORKFLOW_MODULES = ['@weft/graph/runtime', '@weft/nodes/runtime'];
