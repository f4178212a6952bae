import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';
import { organizations } from './organizations';

/**
 * A named secret of an organization (n8n's credentials): workflows and modules refer to it by id.
 * Secret fields are kept only encrypted; `public_fields` holds the ones that are not secret (a
 * header's name, a user name, a host) and `masks` what the API shows of each secret (`••••wxyz`).
 */
export const credentials = pgTable(
  'credentials',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').notNull(),
    publicFields: jsonb('public_fields').$type<Record<string, unknown>>().notNull(),
    /** The secret fields as one JSON object, encrypted with a key derived from APP_KEY (SecretBox). */
    secretCiphertext: text('secret_ciphertext').notNull(),
    masks: jsonb('masks').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('credentials_org_name').on(t.organizationId, t.name),
    index('credentials_org_created').on(t.organizationId, t.createdAt.desc(), t.id.desc()),
  ],
);
