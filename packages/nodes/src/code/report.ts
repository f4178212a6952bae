import { CodeRunError, memoryError } from './errors';
import { type CodeLogs, readCodeLogs } from './logs';

/** A stack frame in the user's code (QuickJS names it `<input>`), and the number of its first line. */
const USER_FRAME = /<input>:(\d+)/g;
const USER_FIRST_LINE = 3;

/**
 * Reads the harness's report (harness.ts) on the host; anything malformed is the user's code
 * sabotaging it or a full heap (QuickJS hands back an empty string when it cannot copy it).
 *
 * @throws CodeRunError `code_output`, `code_error` or `code_memory_limit`.
 */
export function readReport(report: string): { value: unknown; logs: CodeLogs } {
  const colon = report.indexOf(':');
  const kind = colon < 0 ? report : report.slice(0, colon);
  const body = report.slice(colon + 1);
  switch (kind) {
    case 'ok': {
      const newline = body.indexOf('\n');
      let value: unknown;
      try {
        value = JSON.parse(newline < 0 ? body : body.slice(0, newline));
      } catch {
        throw new CodeRunError('code_output', 'the result could not be read back as JSON');
      }
      return { value, logs: readCodeLogs(newline < 0 ? '' : body.slice(newline + 1)) };
    }
    case 'output':
      throw new CodeRunError(
        'code_output',
        `the result is not a JSON value: ${describeReported(body, false)}`,
      );
    case 'error':
      throw new CodeRunError('code_error', describeReported(body, true));
    default:
      throw memoryError();
  }
}

/** `body` is the harness's JSON `[name, message, stack]`; gives `Error: boom (line 3)`. */
function describeReported(body: string, withLine: boolean): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const [name = '', message = '', stack = ''] = Array.isArray(parsed)
    ? parsed.map((part) => (typeof part === 'string' ? part : ''))
    : [];
  const head = name && message ? `${name}: ${message}` : name || message || 'unknown error';
  const line = withLine ? userLine(stack) : undefined;
  return line === undefined ? head : `${head} (line ${line})`;
}

/** The innermost frame in the user's code, as a line of that code counted from 1. */
function userLine(stack: string): number | undefined {
  for (const match of stack.matchAll(USER_FRAME)) {
    const line = Number(match[1]) - USER_FIRST_LINE + 1;
    if (line >= 1) return line;
  }
  return undefined;
}
