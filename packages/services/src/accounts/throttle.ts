import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import { AppError } from '../errors';

/** Sign-in forms (login, register, forgot, reset, second factor): requests per minute per client IP. */
export const AUTH_REQUESTS_PER_MINUTE = 5;

/**
 * Counts one request of `form` from `client` (an IP, or a user id for account changes) in PostgreSQL (shared by every replica, like the API's
 * limits) and refuses it with 429 and Retry-After past the limit.
 */
export async function admitAuthRequest(
  db: Database,
  form: string,
  client: string,
  limit = AUTH_REQUESTS_PER_MINUTE,
) {
  const rows = await db.execute<{ count: number; window_start: Date | string }>(
    sql`select * from weft_count_request(${`auth:${form}:${client}`})`,
  );
  const row = rows[0];
  if (!row || row.count <= limit) return;
  const windowEnd = new Date(row.window_start).getTime() + 60_000;
  const retryAfter = Math.max(1, Math.ceil((windowEnd - Date.now()) / 1000));
  throw new AppError('rate_limited', 'Too many attempts; try again in a minute.', {}, 429, {
    'Retry-After': String(retryAfter),
  });
}
