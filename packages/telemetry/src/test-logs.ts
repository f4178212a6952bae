import path from 'node:path';

/**
 * Where a test run's logs go: one file per test file (quiet-tests.ts), plus `canaries/`, the
 * secret values the tests created (@weft/testing's canaries.ts), which scripts/scan-logs-for-secrets.ts
 * looks for in every log file at the end of `./weft test`. WEFT_TEST_LOG_DIR is set by
 * scripts/run-tests.ts; a bare `vitest run` uses `.data/test-logs`.
 */
export function testLogDirectory(): string {
  return path.resolve(process.env.WEFT_TEST_LOG_DIR ?? '.data/test-logs');
}

/** The log file of one test file (`services__api__test__x.test.ts.log`), or of a process outside one. */
export function testLogFile(testPath: string | undefined): string {
  const name = testPath ? path.relative(process.cwd(), testPath).replaceAll('/', '__') : `pid-${process.pid}`;
  return path.join(testLogDirectory(), `${name}.log`);
}

/** The subdirectory of the canary lists (one JSON-lines file per test process; not a log). */
export const CANARY_DIRECTORY = 'canaries';
