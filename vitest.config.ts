import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'temporal/**/*.test.ts',
      'services/*/src/**/*.test.ts',
      'services/*/test/**/*.test.ts',
      'web/test/**/*.test.ts',
    ],
    // The production-server checks run in the cluster test run only (vitest.cluster.config.ts).
    exclude: ['**/node_modules/**', 'temporal/test/cluster.test.ts', 'temporal/test/cluster-tls.test.ts'],
    globalSetup: ['packages/testing/src/global-setup.ts', 'web/test/build-web.ts'],
    setupFiles: ['packages/telemetry/src/quiet-tests.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Console output (service logs included, see quiet-tests.ts) is printed for failing tests only.
    silent: 'passed-only',
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
