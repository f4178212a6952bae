/**
 * The SQLSTATE of a PostgreSQL error, wherever it sits: drizzle wraps driver errors and keeps the
 * original on `cause`.
 */
export function postgresErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export const UNIQUE_VIOLATION = '23505';
/** Class 22, data exception: bad encoding, out-of-range values; caused by the data a client sent. */
export const isDataException = (error: unknown) => postgresErrorCode(error)?.startsWith('22') ?? false;
