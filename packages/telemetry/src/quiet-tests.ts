import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { configureLogging } from './logger';

/**
 * Vitest setup file. Test processes log at `warn`, and every line goes to two places:
 * - `<WEFT_TEST_LOG_DIR>/<test file>.log` (default `.data/test-logs`; `./weft test` empties it at
 *   the start of a run), to read after the run;
 * - the console, which vitest keeps with the test that logged it and prints only when that test
 *   fails (`silent: 'passed-only'` in the vitest configs), so a failure is not buried.
 * A test that reads log lines passes its own logger (createApp's `logger`).
 */
const directory = path.resolve(process.env.WEFT_TEST_LOG_DIR ?? '.data/test-logs');

/** The running test file's log (`services__api__test__x.test.ts.log`), known once tests run. */
function logFile(): string {
  const testPath = expect.getState().testPath;
  const name = testPath ? path.relative(process.cwd(), testPath).replaceAll('/', '__') : `pid-${process.pid}`;
  return path.join(directory, `${name}.log`);
}

mkdirSync(directory, { recursive: true });
configureLogging({
  level: 'warn',
  destination: {
    write(line: string) {
      appendFileSync(logFile(), line);
      console.log(line.trimEnd());
    },
  },
});
