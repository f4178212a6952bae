import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';
import { organizations } from './organizations';

/** Outbound webhook subscription: Weft calls `url` when one of `events` happens. */
export const webhooks = pgTable(
  'webhooks',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    /** The signing secret, encrypted with a key derived from APP_KEY (it must be readable to sign). */
    secretCiphertext: text('secret_ciphertext').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhooks_org_created').on(t.organizationId, t.createdAt.desc(), t.id.desc())],
);
