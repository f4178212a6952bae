import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeScan, scanLogsForSecrets } from './log-scan';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A test-log directory with two canaries and the given log files. */
function runDirectory(logs: Record<string, string>) {
  dir = mkdtempSync(path.join(os.tmpdir(), 'weft-log-scan-'));
  mkdirSync(path.join(dir, 'canaries'));
  writeFileSync(
    path.join(dir, 'canaries', '123.jsonl'),
    [
      JSON.stringify({ kind: 'api_key', value: 'weft_PLANTEDplantedPLANTED0123456789' }),
      JSON.stringify({ kind: 'credentials:password', value: 'pa"ss/wo rd' }),
      '',
    ].join('\n'),
  );
  for (const [name, text] of Object.entries(logs)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('the log scan for secrets', () => {
  it('passes on clean logs, redacted lines included', () => {
    const scan = scanLogsForSecrets(
      runDirectory({
        'api.test.ts.log': '{"level":"warn","msg":"key [redacted] refused"}\n{"level":"warn","msg":"ok"}\n',
        'cli/weft-up.log': '[weft] started\n',
      }),
    );
    expect(scan).toEqual({ canaries: 2, files: 2, leaks: [] });
    expect(describeScan(scan, dir)).toEqual([
      '[secrets] 2 canary secret(s) looked for in 2 log file(s): none found',
    ]);
  });

  it('fails on a planted secret in any form, naming file, line and kind but never the value', () => {
    const scan = scanLogsForSecrets(
      runDirectory({
        'a.test.ts.log': 'first\n{"msg":"sent weft_PLANTEDplantedPLANTED0123456789"}\n',
        // Escaped inside a JSON string, and URL-encoded in a link.
        'nested/b.log': '{"body":"pa\\"ss/wo rd"}\nx\nhttp://h/?p=pa%22ss%2Fwo%20rd\n',
        // The canary list itself is no log.
        'canaries/other.log': 'weft_PLANTEDplantedPLANTED0123456789\n',
      }),
    );
    expect(scan.leaks.map((l) => [path.relative(dir, l.file), l.line, l.kind]).sort()).toEqual([
      ['a.test.ts.log', 2, 'api_key'],
      ['nested/b.log', 1, 'credentials:password'],
      ['nested/b.log', 3, 'credentials:password'],
    ]);
    const report = describeScan(scan, dir).join('\n');
    expect(report).toContain('a.test.ts.log:2: a api_key canary');
    expect(report).toContain('3 found');
    expect(report).not.toContain('PLANTED');
    expect(report).not.toContain('wo rd');
  });

  it('finds nothing to look for when no test registered a canary', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'weft-log-scan-'));
    writeFileSync(path.join(dir, 'a.log'), 'anything\n');
    expect(scanLogsForSecrets(dir)).toEqual({ canaries: 0, files: 1, leaks: [] });
  });
});
