import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';
import { organizations } from './organizations';
import { webhooks } from './webhooks';

export interface DeliveryAttempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/**
 * One event sent to one webhook: written in the same transaction as the change it reports
 * (an outbox row), then delivered by a Temporal workflow that records every attempt here.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    /** What makes this delivery unique for its webhook, e.g. `execution.failed:<execution_id>:<attempt>`. */
    dedupKey: text('dedup_key').notNull(),
    /** The exact bytes that are signed and sent. */
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'retrying', 'succeeded', 'failed'] })
      .notNull()
      .default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    attempts: jsonb('attempts').$type<DeliveryAttempt[]>().notNull().default([]),
    lastStatusCode: integer('last_status_code'),
    nextRetryAt: timestamp('next_retry_at', { withTimezone: true, precision: 3 }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, precision: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_dedup').on(t.webhookId, t.dedupKey),
    index('webhook_deliveries_webhook_created').on(
      t.organizationId,
      t.webhookId,
      t.createdAt.desc(),
      t.id.desc(),
    ),
    index('webhook_deliveries_pending').on(t.status, t.createdAt),
    // Retention deletes the deliveries that are over, oldest first.
    index('webhook_deliveries_finished_created')
      .on(t.createdAt)
      .where(sql`${t.status} in ('succeeded', 'failed')`),
  ],
);
