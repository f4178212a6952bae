import { pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns';
import { organizations } from './organizations';

/**
 * A chat contact of an organization: who wrote last and until when free-form text may be sent
 * (the 24-hour window). Keyed by the SHA-256 of the E.164 number: the number itself is never stored.
 */
export const chatConversations = pgTable(
  'chat_conversations',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    phoneHash: text('phone_hash').notNull(),
    conversationId: uuid('conversation_id').notNull().defaultRandom(),
    lastInboundAt: timestamp('last_inbound_at', { withTimezone: true, precision: 3 }).notNull(),
    windowExpiresAt: timestamp('window_expires_at', { withTimezone: true, precision: 3 }).notNull(),
    /** The provider's id of the last inbound message: a provider retry of it starts nothing again. */
    lastProviderMessageId: text('last_provider_message_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.phoneHash] })],
);
