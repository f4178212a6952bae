import { pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { organizations } from './organizations';

/**
 * Every provider message id an organization received: a provider's redelivery of any of them (not
 * only the latest) starts nothing again. Holds no content and no number.
 */
export const chatInboundMessages = pgTable(
  'chat_inbound_messages',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    providerMessageId: text('provider_message_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.providerMessageId] })],
);
