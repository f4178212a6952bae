import { jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns';
import { organizations } from './organizations';

/**
 * An organization's configuration of a module (`chat`, `email`, `ai`; DESIGN §7): the fields that
 * are not secret as they are, the secret ones encrypted together (SecretBox) with their masks.
 */
export const organizationModules = pgTable(
  'organization_modules',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    module: text('module', { enum: ['chat', 'email', 'ai'] }).notNull(),
    publicConfig: jsonb('public_config').$type<Record<string, unknown>>().notNull(),
    secretCiphertext: text('secret_ciphertext').notNull(),
    masks: jsonb('masks').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.module] })],
);
