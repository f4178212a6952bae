import { appendFileSync, mkdirSync } from 'node:fs';
import { expect } from 'vitest';
import { configureLogging } from './logger';
import { testLogDirectory, testLogFile } from './test-logs';

/**
 * Vitest setup file. Test processes log at `warn`, and every line goes to two places:
 * - `<WEFT_TEST_LOG_DIR>/<test file>.log` (default `.data/test-logs`; `./weft test` empties it at
 *   the start of a run), to read after the run;
 * - the console, which vitest keeps with the test that logged it and prints only when that test
 *   fails (`silent: 'passed-only'` in the vitest configs), so a failure is not buried.
 * A test that reads log lines passes its own logger (createApp's `logger`).
 */
/** The running test file's log (`services__api__test__x.test.ts.log`), known once tests run. */
const logFile = () => testLogFile(expect.getState().testPath);

mkdirSync(testLogDirectory(), { recursive: true });
configureLogging({
  level: 'warn',
  destination: {
    write(line: string) {
      appendFileSync(logFile(), line);
      console.log(line.trimEnd());
    },
  },
});
