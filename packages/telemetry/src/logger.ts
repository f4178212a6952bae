import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import { type DestinationStream, type Logger, pino } from 'pino';
import { redact, redactText } from './redact';

export type { DestinationStream, Logger } from 'pino';

/** LOG_LEVEL values (pino's names); `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields every line logged inside a request (or another unit of work) carries. */
export interface LogContext {
  request_id?: string;
  org_id?: string;
}

const contexts = new AsyncLocalStorage<LogContext>();

/**
 * Runs `work` with `context` attached: every line logged until it settles (awaits included) carries
 * those fields. The API runs each request inside one, so a log line deep in a service verb still
 * names its request.
 *
 * @example
 * await withLogContext({ request_id: id }, () => next());
 */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return contexts.run({ ...contexts.getStore(), ...context }, work);
}

/** The context of the current unit of work (undefined outside one). */
export function currentLogContext(): LogContext | undefined {
  return contexts.getStore();
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go (default: standard output). Tests pass a stream to read them. */
  destination?: DestinationStream;
}

/**
 * A JSON-lines logger: one object per line with `level` (its name), `time` (ISO 8601), `msg`, the
 * fields passed, and the current log context (`request_id`, `org_id`). Every line goes through the
 * redactor first: no caller has to remember to strip a header, a body or an error's cause.
 *
 * @example
 * const logger = createLogger({ level: 'info' });
 * logger.info({ execution_id: id }, 'execution started');
 * // {"level":"info","time":"2025-…","execution_id":"…","msg":"execution started"}
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => ({ ...contexts.getStore() }),
      // Secrets never reach a line, at any depth and whoever logs (see redact.ts): the fields of
      // each call (errors and their causes included) and the message. (A child's bindings are
      // not walked: getLogger binds a component name only.)
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redact(object),
      },
      serializers: {
        msg: (message: unknown) => (typeof message === 'string' ? redactText(message) : message),
        // Already serialized by the redactor, cause chain included; pino's own would flatten it again.
        err: (error: unknown) => error,
      },
    },
    options.destination,
  );
}

let root = createLogger();

/**
 * Sets the process's logger once its environment is parsed (main.ts); until then lines go to
 * standard output at `info`. Returns the new root logger.
 */
export function configureLogging(options: LoggerOptions): Logger {
  root = createLogger(options);
  return root;
}

/**
 * The process's logger, with `component` on every line when given. Call it where you log, not at
 * module load: a logger taken before `configureLogging` keeps the default level.
 */
export function getLogger(component?: string): Logger {
  return component ? root.child({ component }) : root;
}

/**
 * Sends `console.*` calls of this process (libraries', and any left in our code) through `logger`
 * as JSON lines, so the process's standard output holds nothing else. Only for long-running
 * processes (API, worker): the CLI prints text for people.
 */
export function routeConsoleToLogger(logger: Logger): void {
  const send =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const error = args.find((a): a is Error => a instanceof Error);
      // The stack goes in `err` once, not into the message as well.
      const text = format(...args.map((a) => (a instanceof Error ? a.message : a)));
      logger[level]({ component: 'console', ...(error ? { err: error } : {}) }, text);
    };
  console.log = send('info');
  console.info = send('info');
  console.warn = send('warn');
  console.error = send('error');
  console.debug = send('debug');
}
