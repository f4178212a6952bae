import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Fixed one-minute windows, one row per bucket (`key:<id>` or `org:<id>`), shared by every API replica.
 * Not a tenant table: only the SECURITY DEFINER function weft_authenticate_api_key touches it.
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  bucket: text('bucket').primaryKey(),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  count: integer('count').notNull(),
});
