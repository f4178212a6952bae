import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { organizations } from './organizations';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Hex SHA-256 of the plain key; the key itself is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    /** `weft_ab12…wxyz`: enough for a person to recognise a key, useless to an attacker. */
    keyHint: text('key_hint').notNull(),
    permissions: text('permissions').array().notNull(),
    createdByUserId: uuid('created_by_user_id'),
    createdByApiKeyId: uuid('created_by_api_key_id'),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 3 }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, precision: 3 }),
    createdAt: createdAt(),
  },
  (t) => [index('api_keys_org_created').on(t.organizationId, t.createdAt)],
);
