import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';
import { organizations } from './organizations';

/**
 * One row per message a step sends (e-mail, chat), keyed by the step key
 * `<execution_id>:<node_id>[:<loop_index>]` (DESIGN §12.1). Written `sending` before the provider
 * call and `sent` with the provider's answer after it, so a retried activity never sends twice.
 */
export const messageOutbox = pgTable(
  'message_outbox',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    stepKey: text('step_key').notNull(),
    channel: text('channel', { enum: ['email', 'chat'] }).notNull(),
    status: text('status', { enum: ['sending', 'sent', 'failed'] }).notNull(),
    /** The step's output once sent (message id, accepted recipients): what a retry answers. */
    result: jsonb('result'),
    error: text('error'),
    /** What the provider later said about delivery (sent, delivered, read, failed): the furthest state. */
    deliveryStatus: text('delivery_status'),
    deliveryError: text('delivery_error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('message_outbox_step').on(t.organizationId, t.stepKey),
    index('message_outbox_org_created').on(t.organizationId, t.createdAt.desc()),
    index('message_outbox_provider_id').on(t.organizationId, sql`(${t.result}->>'message_id')`),
  ],
);
