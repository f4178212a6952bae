import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { organizations } from './organizations';
import { users } from './users';

/**
 * A signed-in browser. Only the SHA-256 of the cookie's token is stored. Not a tenant table: a session
 * is found from its cookie before any organization is known; `currentOrganizationId` is the
 * organization the user is working in (the switcher changes it).
 */
export const webSessions = pgTable(
  'web_sessions',
  {
    id: id(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    currentOrganizationId: uuid('current_organization_id').references(() => organizations.id, {
      onDelete: 'set null',
    }),
    /** Password accepted, second factor still owed: the session grants nothing yet. */
    awaitingSecondFactor: boolean('awaiting_second_factor').notNull().default(false),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    uniqueIndex('web_sessions_token_hash').on(t.tokenHash),
    index('web_sessions_user').on(t.userId),
    // Retention deletes sessions past their absolute lifetime.
    index('web_sessions_expires').on(t.expiresAt),
  ],
);

/** Single-use password reset tokens (hash only), valid 60 minutes. */
export const passwordResetTokens = pgTable('password_reset_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, precision: 3 }),
  createdAt: createdAt(),
});
