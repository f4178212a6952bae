/**
 * Value helpers shared by pipes and rendering. Every function here is total: it accepts any
 * JavaScript value (cycles, BigInt, null-prototype objects, throwing `toJSON`) and never throws.
 */

/** JSON text of a value, or undefined when it has none (cycles, BigInt, a throwing `toJSON`). */
export function toJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** Whether the value is a Date, also one made in another realm (Temporal's workflow sandbox is one). */
export function isDate(value: unknown): value is Date {
  return Object.prototype.toString.call(value) === '[object Date]';
}

/**
 * How a value appears inside mixed text: strings as they are, null and undefined as nothing,
 * numbers and booleans as usual, dates as ISO 8601, objects and arrays as JSON.
 *
 * @example toText({ a: 1 }) === '{"a":1}'; toText(null) === ''
 */
export function toText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object': {
      if (value === null) return '';
      if (isDate(value)) {
        const time = Date.prototype.getTime.call(value);
        return Number.isNaN(time) ? '' : new Date(time).toISOString();
      }
      return toJson(value) ?? '';
    }
    default:
      // undefined, functions and symbols have no text form in a config.
      return '';
  }
}

/** Numbers as they are; numeric strings parsed; booleans as 1/0; anything else, NaN and ±Infinity as null. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') return null;
    const parsed = Number(trimmed);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/** Objects whose own enumerable fields are their content: `{}` literals, JSON, null-prototype objects. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.prototype.toString.call(value) === '[object Object]';
}

/** The value an expression yields: undefined becomes null, and functions and symbols never leak out. */
export function normalizeResolved(value: unknown): unknown {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return null;
  return value;
}

/** Replaces lone surrogates with U+FFFD, so encoders such as `encodeURIComponent` cannot throw. */
export function toWellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
