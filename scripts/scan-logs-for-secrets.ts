/**
 * Fails (exit 1) when any log file of a test run holds a secret value the tests created: API keys,
 * credential fields, module and webhook secrets, TOTP secrets, reset and invitation tokens,
 * passwords (the canary lists @weft/testing writes, see packages/testing/src/canaries.ts). Prints
 * `file:line: kind` per find, never the value. scripts/run-tests.ts runs it after every test run.
 *
 *   node --import tsx scripts/scan-logs-for-secrets.ts [test-log dir]   (default: WEFT_TEST_LOG_DIR)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testLogDirectory } from '../packages/telemetry/src/test-logs';
import { describeScan, scanLogsForSecrets } from '../packages/testing/src/log-scan';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Scans `directory`, prints the report, and answers whether it is clean. */
export function scanTestLogs(directory: string): boolean {
  const scan = scanLogsForSecrets(directory);
  const lines = describeScan(scan, root);
  (scan.leaks.length === 0 ? console.log : console.error)(lines.join('\n'));
  return scan.leaks.length === 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(scanTestLogs(path.resolve(process.argv[2] ?? testLogDirectory())) ? 0 : 1);
}
