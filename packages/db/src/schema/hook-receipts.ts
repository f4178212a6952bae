import { index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations';
import { workflows } from './workflows';

/**
 * Inbound hook requests already accepted, so that a repeat starts nothing (services hooks/receipts.ts):
 * a Standard Webhooks `webhook-id` (a sender's retry: answered as the first time) or an
 * `X-Webhook-Signature` (a replay of a body-only signature: refused). Holds hashes only, never a
 * body or an id as sent. Rows older than the dedup window are pruned by the worker's sweeper.
 */
export const hookReceipts = pgTable(
  'hook_receipts',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    workflowId: uuid('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['webhook_id', 'signature'] }).notNull(),
    /** SHA-256 (hex) of the webhook-id or of the hex signature: fixed size whatever the sender sent. */
    keyHash: text('key_hash').notNull(),
    /** What the first request started, answered again to a retry. */
    executionIds: uuid('execution_ids').array().notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workflowId, t.kind, t.keyHash] }),
    index('hook_receipts_received_at').on(t.receivedAt),
  ],
);
