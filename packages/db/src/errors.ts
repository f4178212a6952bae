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

/** postgres.js and Node socket codes of a connection that is gone or cannot be made. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * Whether an error says the database cannot be reached right now (stopped, restarting, network):
 * class 08 (connection exception), 57P01–57P03 (shutdown, cannot connect now), or the driver's and
 * socket's connection codes. The request may succeed on a retry; it is not the client's fault.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (CONNECTION_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)) return true;
  }
  return false;
}
