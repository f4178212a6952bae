import { defineConfig } from 'vitest/config';

/**
 * The engine's end-to-end cases on the production Temporal path (temporal-server on PostgreSQL,
 * see packages/testing/src/cluster-setup.ts), one shared server. Run by scripts/run-tests.ts
 * alongside the main suites of `./weft test`.
 */
export default defineConfig({
  test: {
    include: [
      'temporal/test/engine.test.ts',
      'temporal/test/timers.test.ts',
      'temporal/test/webhook-delivery.test.ts',
      'temporal/test/stored-outputs.test.ts',
      'temporal/test/templates-e2e.test.ts',
      'temporal/test/cluster.test.ts',
      'temporal/test/cluster-tls.test.ts',
    ],
    globalSetup: ['packages/testing/src/global-setup.ts', 'packages/testing/src/cluster-setup.ts'],
    setupFiles: ['packages/telemetry/src/quiet-tests.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // One process for the files in turn: the workflow bundle is built once, not once per file.
    isolate: false,
    // Console output (service logs included, see quiet-tests.ts) is printed for failing tests only.
    silent: 'passed-only',
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
