import { integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { updatedAt } from './columns';
import { organizations } from './organizations';
import { workflows } from './workflows';

/** The last poll of a polling workflow, for operators: when, how it went, and why it failed. */
export const pollStates = pgTable('poll_states', {
  workflowId: uuid('workflow_id')
    .primaryKey()
    .references(() => workflows.id, { onDelete: 'cascade' }),
  organizationId: uuid('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  lastPolledAt: timestamp('last_polled_at', { withTimezone: true, precision: 3 }),
  lastStatus: text('last_status', { enum: ['ok', 'error'] }),
  lastError: jsonb('last_error').$type<{ message: string; code: string } | null>(),
  lastNewItems: integer('last_new_items'),
  /** Set once the first poll took the then-current items as a baseline (trigger_config.baseline). */
  baselineTakenAt: timestamp('baseline_taken_at', { withTimezone: true, precision: 3 }),
  updatedAt: updatedAt(),
});
