import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './packages/testing/src/sequencer';

/**
 * Projects, each with only the global set-up it needs; every test file belongs to exactly one
 * (integration is "everything that is not in another project"):
 * - unit: pure code (graph, node types, config, pure helpers). No PostgreSQL, no Temporal, no web
 *   build: `pnpm test:unit`, or any one of its files, starts nothing.
 * - integration: one PostgreSQL, one Temporal dev server and one workflow bundle for the whole run
 *   (packages/testing/src/global-setup.ts, engine-setup.ts), shared by the files.
 * - browser: the same, plus the built web app (web/test/build-web.ts).
 * - unit-timed, integration-timed: files that measure time against bounds (deadlines, latency
 *   under load), run one at a time after the others so that no neighbour file skews them.
 * Files run two at a time: most of a test's time is spent waiting (on Temporal, HTTP, browsers),
 * so a second file fills the wait. Three at a time was tried (docs/decisions.md "CI time, stop
 * 33"): no clear gain through this machine's noise, and a browser click that did not land. Worker processes are reused between the files of a project
 * (`isolate: false`): a file's modules load once per worker instead of once per file.
 */
const UNIT = [
  'packages/graph/**/*.test.ts',
  'packages/nodes/**/*.test.ts',
  'packages/config/**/*.test.ts',
  'packages/telemetry/**/*.test.ts',
  'packages/db/src/**/*.test.ts',
  'packages/domain/src/**/*.test.ts',
  'packages/domain/test/api-key-format.test.ts',
  'packages/domain/test/workflow-input-edge-ids.test.ts',
  'packages/testing/src/log-scan.test.ts',
  'temporal/codec.test.ts',
  'temporal/cluster-ports.test.ts',
  'services/worker/src/bundle-cache.test.ts',
  'services/cli/src/service-bundle.test.ts',
  'web/test/boundaries.test.ts',
  'web/test/build-loop-logic.test.ts',
  'web/test/canvas-mapper.test.ts',
  'web/test/editor-logic.test.ts',
  'web/test/safe-next.test.ts',
  'web/test/tool-schema.test.ts',
];
const UNIT_TIMED = ['packages/nodes/src/code/isolation.test.ts'];
const INTEGRATION_TIMED = [
  'services/api/test/code-isolation.test.ts',
  'temporal/test/fairness.test.ts',
  'services/cli/src/bench/process-cpu.test.ts',
];
// Every web/test file that is not a unit file drives the browser against the built app.
const BROWSER = ['web/test/**/*.test.ts'];
const ALL = [
  'packages/*/src/**/*.test.ts',
  'packages/*/test/**/*.test.ts',
  'temporal/**/*.test.ts',
  'services/*/src/**/*.test.ts',
  'services/*/test/**/*.test.ts',
  'web/test/**/*.test.ts',
];
// The production-server checks run in the cluster test run only (vitest.cluster.config.ts).
const CLUSTER_ONLY = ['temporal/test/cluster.test.ts', 'temporal/test/cluster-tls.test.ts'];
const SERVICES = [
  'packages/testing/src/global-setup.ts',
  'packages/testing/src/engine-setup.ts',
  'services/cli/test/service-bundles-setup.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['packages/telemetry/src/quiet-tests.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
    // Console output (service logs included, see quiet-tests.ts) is printed for failing tests only.
    silent: 'passed-only',
    reporters: ['default', './scripts/vitest-summary-reporter.ts', './scripts/vitest-timeline-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT, exclude: ['**/node_modules/**', ...UNIT_TIMED] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ALL,
          exclude: ['**/node_modules/**', ...CLUSTER_ONLY, ...UNIT, ...BROWSER, ...INTEGRATION_TIMED],
          globalSetup: SERVICES,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER,
          exclude: ['**/node_modules/**', ...UNIT],
          globalSetup: [...SERVICES, 'web/test/build-web.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'unit-timed', include: UNIT_TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: 'integration-timed',
          include: INTEGRATION_TIMED,
          globalSetup: SERVICES,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
