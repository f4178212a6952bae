import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Fixed one-minute windows, one row per bucket (`key:<id>`, `org:<id>`, `hook:<workflow id>`), shared
 * by every API replica. For keys and organizations `count` is what replicas have reserved in the
 * window (in batches, services/api/src/auth/rate-limit-leases.ts), used or not. Not a tenant table:
 * only the SECURITY DEFINER functions weft_authenticate_api_key and weft_find_hook touch it.
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  bucket: text('bucket').primaryKey(),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  count: integer('count').notNull(),
});
