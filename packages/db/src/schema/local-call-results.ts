import { index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { executions } from './executions';
import { organizations } from './organizations';

/**
 * What a local activity's call answered (temporal/activities/run-node.ts), written before the
 * activity returns. Temporal records a local activity's result only with the workflow task that
 * follows it; when that task is lost (a worker too busy to complete it in time), the task runs again
 * and so does the local activity. It then finds its answer here instead of calling again. Keyed by
 * the Temporal run and the activity's sequence number, which a re-run of the task repeats. Rows are
 * needed only until that task completes; the worker's sweeper prunes them after a day.
 */
export const localCallResults = pgTable(
  'local_call_results',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    executionId: uuid('execution_id')
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    /** `<Temporal run id>/<activity id>`. */
    callKey: text('call_key').notNull(),
    /** The activity's answer: `{ output }` or `{ failed }` (the failure that ended the step). */
    outcome: jsonb('outcome').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.executionId, t.callKey] }),
    index('local_call_results_created').on(t.createdAt),
  ],
);
