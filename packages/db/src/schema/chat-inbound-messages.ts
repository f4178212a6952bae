import { index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { organizations } from './organizations';

/**
 * Every provider message id an organization received: a provider's redelivery of any of them (not
 * only the latest) starts nothing again. Holds no content and no number. Kept for
 * CHAT_INBOUND_DEDUP_DAYS (packages/domain, table-retention.ts): providers stop redelivering long before.
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
  (t) => [
    primaryKey({ columns: [t.organizationId, t.providerMessageId] }),
    index('chat_inbound_messages_created').on(t.createdAt),
  ],
);
