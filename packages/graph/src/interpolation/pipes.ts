import {
  checkBuiltValue,
  listTooLarge,
  MAX_EXPRESSION_LIST_ITEMS,
  MAX_EXPRESSION_TEXT_LENGTH,
  textTooLarge,
} from './limits';
import { formatPhpDate, parseDateInput } from './php-date';
import type { RenderOptions } from './scope';
import { toJson, toNumber, toText, toWellFormed } from './values';

/**
 * One pipe: how many arguments it takes, what it does, and what it checks about its arguments when
 * a workflow is saved. `apply` must be total: any input, any arguments, never throw. Null and
 * undefined pass through every pipe except `default`, `json` and `length`, so `| default:x` can
 * come last in a chain.
 */
interface PipeDefinition {
  minArgs: number;
  /**
   * The last argument takes the rest of the text up to the next `|`, colons included, so
   * `date:H:i:s` and `default:https://x` need no quotes.
   */
  maxArgs: number;
  /** A save-time problem with the arguments beyond their count, as a message. */
  checkArgs?: (args: readonly string[]) => string | undefined;
  apply: (input: unknown, args: readonly string[], options: RenderOptions) => unknown;
}

/** Pipes whose input is text: null stays null (so `default` can follow), other values become their text. */
function textPipe(transform: (text: string, args: readonly string[]) => unknown) {
  return (input: unknown, args: readonly string[]): unknown =>
    input === null || input === undefined ? null : transform(toText(input), args);
}

/** Thrown inside a pipe before it builds a value over the limits; applyPipe names the expression. */
class OverLimit extends Error {
  constructor(readonly kind: 'text' | 'list') {
    super(kind);
  }
}

/** Refuses a text about to be built of `length` characters, before it is allocated. */
function reserveText(length: number): void {
  if (length > MAX_EXPRESSION_TEXT_LENGTH) throw new OverLimit('text');
}

function joinCapped(items: readonly unknown[], separator: string): string {
  const texts = items.map((item) => toText(item));
  let length = Math.max(0, texts.length - 1) * separator.length;
  for (const text of texts) length += text.length;
  reserveText(length);
  return texts.join(separator);
}

function splitCapped(text: string, separator: string): string[] {
  if (separator !== '') {
    const parts = text.split(separator, MAX_EXPRESSION_LIST_ITEMS + 1);
    if (parts.length > MAX_EXPRESSION_LIST_ITEMS) throw new OverLimit('list');
    return parts;
  }
  // A code point is one or two code units: this many units are surely too many points.
  if (text.length > 2 * MAX_EXPRESSION_LIST_ITEMS) throw new OverLimit('list');
  const points = codePoints(text);
  if (points.length > MAX_EXPRESSION_LIST_ITEMS) throw new OverLimit('list');
  return points;
}

function replaceCapped(text: string, search: string, replacement: string): string {
  if (search === '') return text;
  const pieces = text.split(search);
  reserveText(text.length + (pieces.length - 1) * (replacement.length - search.length));
  return pieces.join(replacement);
}

function parseInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*-?\d{1,6}\s*$/.test(text)) return undefined;
  return Number(text);
}

const integerArg =
  (label: string, min: number, max: number) =>
  (args: readonly string[]): string | undefined => {
    const first = args[0];
    if (first === undefined) return undefined;
    const value = parseInteger(first);
    return value === undefined || value < min || value > max
      ? `${label} must be a whole number from ${min} to ${max}, not "${first}"`
      : undefined;
  };

/** Rounds half away from zero (as PHP's round), via exponent text so 1.005 rounds to 1.01. */
function roundTo(value: number, places: number): number {
  // Whole numbers need no decimals rounded (and past 1e21 they print with an exponent).
  if (Number.isInteger(value) && places >= 0) return value + 0;
  const sign = value < 0 ? -1 : 1;
  const magnitude = Math.abs(value);
  let rounded = Number(`${Math.round(Number(`${magnitude}e${places}`))}e${-places}`);
  // Exponent text fails for tiny numbers, which print with an exponent (5e-7).
  if (!Number.isFinite(rounded)) rounded = Math.round(magnitude * 10 ** places) / 10 ** places;
  const result = sign * rounded;
  return Number.isFinite(result) ? result + 0 : value; // + 0 turns -0 into 0
}

/** Splits text into code points, so emoji and other astral characters are never cut in half. */
const codePoints = (text: string): string[] => Array.from(text);

function firstCodePoint(text: string): string | null {
  const point = text.codePointAt(0);
  return point === undefined ? null : String.fromCodePoint(point);
}

function lastCodePoint(text: string): string | null {
  if (text.length === 0) return null;
  const low = text.charCodeAt(text.length - 1);
  const high = text.charCodeAt(text.length - 2);
  const isPair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return text.slice(isPair ? -2 : -1);
}

function truncate(text: string, maxLength: number, suffix: string): string {
  if (text.length <= maxLength) return text; // code points never outnumber code units
  const points = codePoints(text);
  return points.length <= maxLength ? text : points.slice(0, maxLength).join('') + suffix;
}

function lengthOf(input: unknown): number {
  if (input === null || input === undefined) return 0;
  if (typeof input === 'string') return codePoints(input).length;
  if (Array.isArray(input)) return input.length;
  if (typeof input === 'object') return Object.keys(input).length;
  return toText(input).length;
}

const PIPES = new Map<string, PipeDefinition>([
  ['upper', { minArgs: 0, maxArgs: 0, apply: textPipe((text) => text.toUpperCase()) }],
  ['lower', { minArgs: 0, maxArgs: 0, apply: textPipe((text) => text.toLowerCase()) }],
  ['trim', { minArgs: 0, maxArgs: 0, apply: textPipe((text) => text.trim()) }],
  [
    'default',
    {
      minArgs: 1,
      maxArgs: 1,
      apply: (input, [fallback = '']) => (input === null || input === undefined ? fallback : input),
    },
  ],
  [
    'date',
    {
      minArgs: 1,
      maxArgs: 1,
      apply: (input, [format = ''], options) => {
        const epochMs = parseDateInput(input, options.now, options.timezone);
        return epochMs === undefined ? null : formatPhpDate(epochMs, format, options.timezone);
      },
    },
  ],
  ['json', { minArgs: 0, maxArgs: 0, apply: (input) => toJson(input ?? null) ?? null }],
  ['length', { minArgs: 0, maxArgs: 0, apply: lengthOf }],
  ['number', { minArgs: 0, maxArgs: 0, apply: toNumber }],
  [
    'round',
    {
      minArgs: 0,
      maxArgs: 1,
      checkArgs: integerArg('round: the number of decimals', -15, 15),
      apply: (input, [places]) => {
        const value = toNumber(input);
        const decimals = Math.max(-15, Math.min(15, parseInteger(places) ?? 0));
        return value === null ? null : roundTo(value, decimals);
      },
    },
  ],
  [
    'join',
    {
      minArgs: 0,
      maxArgs: 1,
      apply: (input, [separator = ',']) =>
        Array.isArray(input) ? joinCapped(input, separator) : (input ?? null),
    },
  ],
  [
    'split',
    {
      minArgs: 0,
      maxArgs: 1,
      apply: (input, [separator = ',']) => {
        if (input === null || input === undefined) return null;
        if (Array.isArray(input)) return input;
        return splitCapped(toText(input), separator);
      },
    },
  ],
  [
    'first',
    {
      minArgs: 0,
      maxArgs: 0,
      apply: (input) => {
        if (Array.isArray(input)) return input.length > 0 ? input[0] : null;
        return typeof input === 'string' ? firstCodePoint(input) : null;
      },
    },
  ],
  [
    'last',
    {
      minArgs: 0,
      maxArgs: 0,
      apply: (input) => {
        if (Array.isArray(input)) return input.length > 0 ? input[input.length - 1] : null;
        return typeof input === 'string' ? lastCodePoint(input) : null;
      },
    },
  ],
  [
    'replace',
    {
      minArgs: 1,
      maxArgs: 2,
      checkArgs: ([search]) => (search === '' ? 'replace: the text to replace cannot be empty' : undefined),
      // Plain text, never a regular expression: user patterns must not be able to backtrack forever.
      apply: textPipe((text, [search = '', replacement = '']) => replaceCapped(text, search, replacement)),
    },
  ],
  [
    'truncate',
    {
      minArgs: 1,
      maxArgs: 2,
      checkArgs: integerArg('truncate: the length', 0, 1_000_000),
      apply: textPipe((text, [length, suffix = '']) => {
        const maxLength = parseInteger(length);
        return maxLength === undefined || maxLength < 0 ? text : truncate(text, maxLength, suffix);
      }),
    },
  ],
  [
    'urlencode',
    {
      minArgs: 0,
      maxArgs: 0,
      // The encoding is at least as long as the text (up to 9 times): refuse before building it.
      apply: textPipe((text) => {
        reserveText(text.length);
        return encodeURIComponent(toWellFormed(text));
      }),
    },
  ],
]);

/** The names of all pipes, in the order the documentation lists them. */
export const PIPE_NAMES: readonly string[] = Object.freeze([...PIPES.keys()]);

/**
 * How each pipe is written, with what it does: the editor's autocomplete offers these. A test keeps
 * the list in step with the pipes themselves.
 */
export const PIPE_USAGE: Readonly<Record<string, { usage: string; description: string }>> = Object.freeze({
  upper: { usage: 'upper', description: 'text in upper case' },
  lower: { usage: 'lower', description: 'text in lower case' },
  trim: { usage: 'trim', description: 'spaces removed at both ends' },
  default: { usage: 'default:<fallback>', description: 'the fallback when the value is missing or null' },
  date: { usage: 'date:Y-m-d H:i', description: 'a date or time formatted (PHP date letters)' },
  json: { usage: 'json', description: 'the value as JSON text' },
  length: { usage: 'length', description: 'characters of a text, items of a list, keys of an object' },
  number: { usage: 'number', description: 'the value as a number (null when it is not one)' },
  round: { usage: 'round:<decimals>', description: 'a number rounded (0 decimals by default)' },
  join: { usage: 'join:<separator>', description: 'list items joined into one text' },
  split: { usage: 'split:<separator>', description: 'a text cut into a list' },
  first: { usage: 'first', description: 'the first item of a list (or character of a text)' },
  last: { usage: 'last', description: 'the last item of a list (or character of a text)' },
  replace: { usage: 'replace:<find>:<with>', description: 'every occurrence of a text replaced' },
  truncate: { usage: 'truncate:<length>:<suffix>', description: 'a text cut to a length, with a suffix' },
  urlencode: { usage: 'urlencode', description: 'a text made safe for a URL part' },
});

/** Thrown when a template uses a pipe that does not exist; save-time checks keep such templates out. */
export class UnknownPipeError extends Error {
  readonly pipe: string;

  constructor(pipe: string, source: string) {
    super(`unknown pipe "${pipe}" in ${source}`);
    this.name = 'UnknownPipeError';
    this.pipe = pipe;
  }
}

/** How many arguments a pipe takes at most; unknown pipes take any number (the check rejects them anyway). */
export function maxPipeArgs(name: string): number {
  return PIPES.get(name)?.maxArgs ?? Number.POSITIVE_INFINITY;
}

/**
 * The save-time problem with one pipe call, or undefined when it is fine: unknown name,
 * too few or too many arguments, or an argument of the wrong form (`round:x`).
 *
 * @example checkPipeCall({ name: 'uper', args: [] }) // 'unknown pipe "uper"; pipes are: upper, lower, …'
 */
export function checkPipeCall(call: { name: string; args: readonly string[] }): string | undefined {
  const pipe = PIPES.get(call.name);
  if (!pipe) return `unknown pipe "${call.name}"; pipes are: ${PIPE_NAMES.join(', ')}`;
  if (call.args.length < pipe.minArgs)
    return `pipe "${call.name}" needs ${pipe.minArgs === 1 ? 'an argument' : `${pipe.minArgs} arguments`}, e.g. ${call.name}:…`;
  if (call.args.length > pipe.maxArgs)
    return pipe.maxArgs === 0
      ? `pipe "${call.name}" takes no argument`
      : `pipe "${call.name}" takes at most ${pipe.maxArgs} argument${pipe.maxArgs === 1 ? '' : 's'}`;
  return pipe.checkArgs?.(call.args);
}

/**
 * Applies one pipe. Throws {@link UnknownPipeError} for an unknown name and
 * ExpressionTooLargeError when the pipe would build a text or list over the limits
 * (limits.ts), and nothing else: a known pipe yields a value (null when it has nothing sensible to give).
 */
export function applyPipe(
  input: unknown,
  call: { name: string; args: readonly string[] },
  options: RenderOptions,
  source: string,
): unknown {
  const pipe = PIPES.get(call.name);
  if (!pipe) throw new UnknownPipeError(call.name, source);
  let output: unknown;
  try {
    output = pipe.apply(input, call.args, options);
  } catch (error) {
    if (error instanceof OverLimit) throw error.kind === 'text' ? textTooLarge(source) : listTooLarge(source);
    // The pipes are written to be total; this keeps a missed corner (a hostile getter, a Proxy)
    // from failing a workflow step over data it did not choose.
    return null;
  }
  // What a pipe hands on unchanged was not built here (see limits.ts).
  if (output !== input) checkBuiltValue(output, source);
  return output === undefined ? null : output;
}
