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

/** Enough of a value to tell it leaked; keeps each pattern (and the regular expressions) small. */
const FORM_LENGTH = 96;
/** Alternatives per regular expression: V8 refuses one that grows too large. */
const PER_PATTERN = 250;

/**
 * The forms a value takes in a log line: as is, escaped inside a JSON string, and URL-encoded
 * (each cut to FORM_LENGTH). Each maps back to its canary.
 */
function forms(canaries: Canary[]): Map<string, Canary> {
  const all = new Map<string, Canary>();
  for (const canary of canaries) {
    const { value } = canary;
    for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]) {
      all.set(form.slice(0, FORM_LENGTH), canary);
    }
  }
  return all;
}

/** The forms as a few regular expressions, longest alternatives first. */
function patterns(byForm: Map<string, Canary>): RegExp[] {
  const sorted = [...byForm.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const out: RegExp[] = [];
  for (let i = 0; i < sorted.length; i += PER_PATTERN) {
    out.push(new RegExp(sorted.slice(i, i + PER_PATTERN).join('|'), 'g'));
  }
  return out;
}

/**
 * Looks for every canary of a test run in every log file of it (`<dir>/canaries/*.jsonl` against
 * `<dir>/**\/*.log`): a few regular expressions of all the forms run over each file.
 */
export function scanLogsForSecrets(directory: string): LogScan {
  const canaries = readCanaries(directory);
  const files = logFiles(directory);
  const byForm = forms(canaries);
  const leaks: LogLeak[] = [];
  if (byForm.size === 0) return { canaries: 0, files: files.length, leaks };
  const all = patterns(byForm);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const lineStarts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    const found = new Map<string, LogLeak>();
    for (const pattern of all) {
      for (const match of text.matchAll(pattern)) {
        const at = match.index ?? 0;
        const line = lineStarts.findLastIndex((start) => start <= at) + 1;
        const kind = byForm.get(match[0])?.kind ?? 'unknown';
        // One report per line and kind (a value and its JSON form may both match).
        found.set(`${line}:${kind}`, { file, line, kind });
      }
    }
    leaks.push(...[...found.values()].sort((a, b) => a.line - b.line));
  }
  return { canaries: canaries.length, files: files.length, leaks };
}

/** The report's lines: `file:line: <kind>` per leak, then the totals. */
export function describeScan(scan: LogScan, root: string): string[] {
  const shown = (file: string) =>
    path.relative(root, file).startsWith('..') ? file : path.relative(root, file);
  const where = (leak: LogLeak) => `${shown(leak.file)}:${leak.line}: a ${leak.kind} canary`;
  const summary = `${scan.canaries} canary secret(s) looked for in ${scan.files} log file(s)`;
  return scan.leaks.length === 0
    ? [`[secrets] ${summary}: none found`]
    : [
        ...scan.leaks.map((leak) => `[secrets] ${where(leak)}`),
        `[secrets] ${summary}: ${scan.leaks.length} found (the values are in the canary lists, not printed)`,
      ];
}
