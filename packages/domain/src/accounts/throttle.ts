import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import { AppError } from '../errors';

/** Sign-in forms (login, register, forgot, reset, second factor): requests per minute per client IP. */
export const AUTH_REQUESTS_PER_MINUTE = 5;

/**
 * Counts one request of `form` from `client` (an IP, or a user id for account changes) in PostgreSQL (shared by every replica, like the API's
 * limits) and refuses it with 429 and Retry-After past the limit.
 */
/** Counts one request in `bucket`'s current one-minute window; answers the count so far. */
export async function countRequest(
  db: Database,
  bucket: string,
): Promise<{ count: number; windowStart: Date }> {
  const [row] = await db.execute<{ count: number; window_start: Date | string }>(
    sql`select * from weft_count_request(${bucket})`,
  );
  if (!row) throw new Error('weft_count_request answered no row');
  return { count: row.count, windowStart: new Date(row.window_start) };
}

export async function admitAuthRequest(
  db: Database,
  form: string,
  client: string,
  limit = AUTH_REQUESTS_PER_MINUTE,
) {
  const row = await countRequest(db, `auth:${form}:${client}`);
  if (row.count <= limit) return;
  const windowEnd = row.windowStart.getTime() + 60_000;
  const retryAfter = Math.max(1, Math.ceil((windowEnd - Date.now()) / 1000));
  throw new AppError('rate_limited', 'Too many attempts; try again in a minute.', {}, 429, {
    'Retry-After': String(retryAfter),
  });
}
