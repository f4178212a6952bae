import { z } from 'zod';

/** At most this many `console` lines are kept per run; later ones are dropped. */
export const CODE_LOG_MAX_LINES = 100;
/** At most this many characters of messages in all; the line that crosses it is cut. */
export const CODE_LOG_MAX_CHARS = 8192;

export const CodeLogLine = z.object({
  level: z.enum(['log', 'info', 'warn', 'error', 'debug']),
  message: z.string(),
});
export type CodeLogLine = z.infer<typeof CodeLogLine>;

/** What user code wrote to `console` during one run. */
export interface CodeLogs {
  lines: CodeLogLine[];
  /** Lines were dropped or a message cut to stay within the bounds. */
  truncated: boolean;
}

const Reported = z.tuple([z.array(z.unknown()), z.boolean()]);

/**
 * The sandbox's `[lines, cut]` report, checked again on the host: user code that tampered with
 * the sandbox's built-ins gets its malformed lines dropped, and the bounds hold whatever it sent.
 */
export function readCodeLogs(json: string): CodeLogs {
  let parsed: z.infer<typeof Reported>;
  try {
    parsed = Reported.parse(JSON.parse(json));
  } catch {
    return { lines: [], truncated: json !== '' };
  }
  const [reported, cut] = parsed;
  const lines: CodeLogLine[] = [];
  let chars = 0;
  let truncated = cut;
  for (const item of reported) {
    const line = CodeLogLine.safeParse(item);
    if (!line.success) {
      truncated = true;
      continue;
    }
    if (lines.length >= CODE_LOG_MAX_LINES || chars >= CODE_LOG_MAX_CHARS) {
      truncated = true;
      break;
    }
    const room = CODE_LOG_MAX_CHARS - chars;
    const message = line.data.message.length > room ? line.data.message.slice(0, room) : line.data.message;
    if (message !== line.data.message) truncated = true;
    chars += message.length;
    lines.push({ level: line.data.level, message });
  }
  return { lines, truncated };
}
