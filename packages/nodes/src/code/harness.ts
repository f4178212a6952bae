/**
 * Runs inside every fresh context before the user's code, then compiles and calls that code. It
 * captures the built-ins it relies on first, so user code that replaces `JSON.stringify` or
 * `String.prototype.slice` does not change how the outcome is reported (code that sabotages the
 * report only gets a `code_output` or `code_memory` error).
 *
 * Every outcome leaves the sandbox as one string with a prefix (`ok:`, `output:`, `error:`,
 * `memory:`). The host reads nothing else, so no user code runs on the host's behalf: a thrown
 * object's getters and proxy traps run here, under the sandbox's limits. The report is ASCII (JSON
 * with `\u` escapes) and built by `join`, which makes one flat 8-bit string: QuickJS hands such a
 * string to the host without allocating, so it can be read even when the user's code has filled
 * the heap. The out-of-memory and undescribable-error reports are built in advance for the same
 * reason.
 *
 * The code is compiled with the AsyncFunction constructor, so `return` and `await` work at its top
 * level and a syntax error is reported like any other error. QuickJS names that source `<input>`
 * and numbers the code's first line 3. Code that closes the function early only runs more code in
 * the same sandbox, inside the same try.
 *
 * `console.log/info/warn/error/debug` calls are kept, bounded (100 lines, 8,192 characters in all;
 * later ones are dropped and the report says so), and travel after the result on a line of their
 * own: `ok:<result JSON>\n<[logs, cut] JSON>`. JSON never holds a raw newline, so the split is exact.
 * Arguments are formatted here, under the sandbox's limits; the host checks the shape again (logs.ts).
 */
export const HARNESS = String.raw`(() => {
  'use strict';
  const apply = Reflect.apply;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const join = Array.prototype.join;
  const replace = String.prototype.replace;
  const slice = String.prototype.slice;
  const charCodeAt = String.prototype.charCodeAt;
  const numberToString = Number.prototype.toString;
  const padStart = String.prototype.padStart;
  const toText = String;
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  const OutOfMemory = InternalError;
  const NON_ASCII = /[\u0080-\uffff]/g;
  const MAX_MESSAGE = 2000;
  const MAX_STACK = 4000;

  const flat = (parts) => apply(join, parts, ['']);
  const escape = (c) => flat(['\\u', apply(padStart, apply(numberToString, apply(charCodeAt, c, [0]), [16]), [4, '0'])]);
  const ascii = (json) => apply(replace, json, [NON_ASCII, escape]);
  const MEMORY = flat(['memory:']);
  const UNDESCRIBABLE = flat(['error:', stringify(['Error', 'the code threw a value that cannot be described', ''])]);
  const noop = () => undefined;
  const push = Array.prototype.push;
  const LOG_LINES = 100;
  const LOG_CHARS = 8192;
  const logs = [];
  let logChars = 0;
  let logsCut = false;
  const describeArg = (value) => {
    if (typeof value === 'string') return value;
    try {
      if (value instanceof Error) return flat([text(value.name, MAX_MESSAGE), ': ', text(value.message, MAX_MESSAGE)]);
      const json = stringify(value);
      if (json !== undefined) return json;
    } catch {}
    try {
      return toText(value);
    } catch {
      return '[unprintable]';
    }
  };
  const record = (level) => (...args) => {
    if (logs.length >= LOG_LINES || logChars >= LOG_CHARS) {
      logsCut = true;
      return;
    }
    const parts = [];
    for (let i = 0; i < args.length; i++) apply(push, parts, [describeArg(args[i])]);
    let message = apply(join, parts, [' ']);
    if (message.length > LOG_CHARS - logChars) {
      message = apply(slice, message, [0, LOG_CHARS - logChars]);
      logsCut = true;
    }
    logChars += message.length;
    apply(push, logs, [{ level, message }]);
  };
  globalThis.console = Object.freeze({
    log: record('log'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    debug: record('debug'),
    trace: noop,
  });
  const logReport = () => {
    try {
      return ascii(stringify([logs, logsCut]));
    } catch {
      return '[[],true]';
    }
  };

  const isOutOfMemory = (e) => e instanceof OutOfMemory && e.message === 'out of memory';
  const text = (value, max) =>
    value === undefined ? '' : apply(slice, typeof value === 'string' ? value : toText(value), [0, max]);
  const describe = (e) =>
    e !== null && (typeof e === 'object' || typeof e === 'function')
      ? [text(e.name, MAX_MESSAGE), text(e.message, MAX_MESSAGE), text(e.stack, MAX_STACK)]
      : ['', text(e, MAX_MESSAGE), ''];
  const report = (prefix, e) => {
    try {
      return isOutOfMemory(e) ? MEMORY : flat([prefix, ascii(stringify(describe(e)))]);
    } catch (e2) {
      try {
        return isOutOfMemory(e2) ? MEMORY : UNDESCRIBABLE;
      } catch {
        return UNDESCRIBABLE;
      }
    }
  };
  // Functions, symbols and bigints are not JSON; stringify would drop the first two silently.
  const replacer = (key, value) => {
    const type = typeof value;
    if (type === 'function' || type === 'symbol' || type === 'bigint') {
      throw new TypeError(flat(['a ', type, ' is not a JSON value', key === '' ? '' : flat([' (at key "', key, '")'])]));
    }
    return value;
  };

  return async (code, inputJson) => {
    let result;
    try {
      result = await new AsyncFunction('input', code)(parse(inputJson));
    } catch (e) {
      return report('error:', e);
    }
    try {
      return flat(['ok:', ascii(stringify(result === undefined ? null : result, replacer)), '\n', logReport()]);
    } catch (e) {
      return report('output:', e);
    }
  };
})()`;
