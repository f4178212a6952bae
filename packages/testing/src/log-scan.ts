import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CANARY_DIRECTORY } from '@weft/telemetry';

/** One secret found in a log: where, and which kind of canary (never the value). */
export interface LogLeak {
  file: string;
  line: number;
  kind: string;
}

export interface LogScan {
  canaries: number;
  files: number;
  leaks: LogLeak[];
}

interface Canary {
  kind: string;
  value: string;
}

function readCanaries(directory: string): Canary[] {
  const canaryDirectory = path.join(directory, CANARY_DIRECTORY);
  if (!existsSync(canaryDirectory)) return [];
  const byValue = new Map<string, Canary>();
  for (const file of readdirSync(canaryDirectory).filter((name) => name.endsWith('.jsonl'))) {
    for (const line of readFileSync(path.join(canaryDirectory, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const canary = JSON.parse(line) as Canary;
      byValue.set(canary.value, canary);
    }
  }
  return [...byValue.values()];
}

/** Every log file under `directory` (any depth), the canary lists excepted. */
function logFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.log'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !path.relative(directory, file).startsWith(`${CANARY_DIRECTORY}${path.sep}`));
}

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * The forms a value takes in a log line: as is, escaped inside a JSON string, and URL-encoded.
 * Each maps back to its canary.
 */
function forms(canaries: Canary[]): Map<string, Canary> {
  const all = new Map<string, Canary>();
  for (const canary of canaries) {
    for (const form of [
      canary.value,
      JSON.stringify(canary.value).slice(1, -1),
      encodeURIComponent(canary.value),
    ]) {
      all.set(form, canary);
    }
  }
  return all;
}

/**
 * Looks for every canary of a test run in every log file of it (`<dir>/canaries/*.jsonl` against
 * `<dir>/**\/*.log`). One regular expression of all the forms runs over each file.
 */
export function scanLogsForSecrets(directory: string): LogScan {
  const canaries = readCanaries(directory);
  const files = logFiles(directory);
  const byForm = forms(canaries);
  const leaks: LogLeak[] = [];
  if (byForm.size === 0) return { canaries: 0, files: files.length, leaks };
  const pattern = new RegExp(
    [...byForm.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const lineStarts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    for (const match of text.matchAll(pattern)) {
      const at = match.index ?? 0;
      let line = lineStarts.findLastIndex((start) => start <= at) + 1;
      if (line === 0) line = 1;
      leaks.push({ file, line, kind: byForm.get(match[0])?.kind ?? 'unknown' });
    }
  }
  return { canaries: canaries.length, files: files.length, leaks };
}

/** The report's lines: `file:line: <kind>` per leak, then the totals. */
export function describeScan(scan: LogScan, root: string): string[] {
  const where = (leak: LogLeak) => `${path.relative(root, leak.file)}:${leak.line}: a ${leak.kind} canary`;
  const summary = `${scan.canaries} canary secret(s) looked for in ${scan.files} log file(s)`;
  return scan.leaks.length === 0
    ? [`[secrets] ${summary}: none found`]
    : [
        ...scan.leaks.map((leak) => `[secrets] ${where(leak)}`),
        `[secrets] ${summary}: ${scan.leaks.length} found (the values are in the canary lists, not printed)`,
      ];
}
