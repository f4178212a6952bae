/**
 * How large a value interpolation may build. Pipes like `split` then `join:<long separator>` or
 * `replace` can multiply their input; without a cap one expression on a 1 MB payload made 11 MB and
 * doubled the worker's memory. A value passed through unchanged (`{{ nodes.fetch.body }}`) is not
 * built here and keeps its own limits (payload and output sizes).
 */

/** Characters (UTF-16 code units) in one text a pipe or a mixed template makes: 1 Mi. */
export const MAX_EXPRESSION_TEXT_LENGTH = 1024 * 1024;

/** Items in one list a pipe makes (`split`). */
export const MAX_EXPRESSION_LIST_ITEMS = 100_000;

/**
 * An expression built a value over a limit. Rendering a config fails the step with `code`
 * (`expression_too_large`) and a message naming the config field.
 */
export class ExpressionTooLargeError extends Error {
  readonly code = 'expression_too_large';
  readonly detail: string;
  readonly field: string | undefined;

  constructor(detail: string, field?: string) {
    super(field === undefined ? detail : `${field}: ${detail}`);
    this.name = 'ExpressionTooLargeError';
    this.detail = detail;
    this.field = field;
  }

  /** The same error, naming the config field it happened in. */
  inField(field: string): ExpressionTooLargeError {
    return this.field === undefined ? new ExpressionTooLargeError(this.detail, field) : this;
  }
}

export function textTooLarge(source: string): ExpressionTooLargeError {
  return new ExpressionTooLargeError(
    `${source} makes a text longer than ${MAX_EXPRESSION_TEXT_LENGTH} characters`,
  );
}

export function listTooLarge(source: string): ExpressionTooLargeError {
  return new ExpressionTooLargeError(
    `${source} makes a list of more than ${MAX_EXPRESSION_LIST_ITEMS} items`,
  );
}

/** Refuses a text or list (built by a pipe) over the limits; other values pass. */
export function checkBuiltValue(value: unknown, source: string): void {
  if (typeof value === 'string' && value.length > MAX_EXPRESSION_TEXT_LENGTH) throw textTooLarge(source);
  if (Array.isArray(value) && value.length > MAX_EXPRESSION_LIST_ITEMS) throw listTooLarge(source);
}
