import { integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations';

/**
 * The message templates of an organization's chat account, as last synced from the provider
 * (POST /chat/templates/sync): only `APPROVED` ones may be sent.
 */
export const chatTemplates = pgTable(
  'chat_templates',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    language: text('language').notNull(),
    status: text('status').notNull(),
    category: text('category'),
    /** How many `{{n}}` the body takes: a send must give exactly that many variables. */
    bodyVariables: integer('body_variables').notNull(),
    syncedAt: timestamp('synced_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.name, t.language] })],
);
