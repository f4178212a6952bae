import { sql } from 'drizzle-orm';
import { bigint, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';

/**
 * A person who signs in to the web app. Not a tenant table: a user belongs to organizations through
 * `memberships`, and must be found by e-mail before any organization is known. Only the accounts
 * verbs in packages/domain/src/accounts read it.
 */
export const users = pgTable(
  'users',
  {
    id: id(),
    email: text('email').notNull(),
    name: text('name'),
    passwordHash: text('password_hash').notNull(),
    /** TOTP secret, encrypted with the SecretBox; set during set-up, active once `totpEnabledAt` is. */
    totpSecretCiphertext: text('totp_secret_ciphertext'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true, precision: 3 }),
    /** The last accepted TOTP time step: a code is never accepted twice. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /** SHA-256 of each unused recovery code (they are random, so a fast hash is enough). */
    recoveryCodeHashes: text('recovery_code_hashes').array().notNull().default(sql`'{}'`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_email_unique').on(sql`lower(${t.email})`)],
);
