import { index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { organizations } from './organizations';
import { workflows } from './workflows';

/** Polling dedup: one row per item a polling workflow has seen; the primary key refuses a second. */
export const pollSeenItems = pgTable(
  'poll_seen_items',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    workflowId: uuid('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    dedupKey: text('dedup_key').notNull(),
    /** The execution the item started; null for items taken as the baseline. */
    executionId: uuid('execution_id'),
    createdAt: createdAt(),
    /** Refreshed (at most daily) by each poll whose answer lists the item; retention reads it. */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workflowId, t.dedupKey] }),
    index('poll_seen_items_last_seen').on(t.lastSeenAt),
  ],
);
