import { index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { executions } from './executions';
import { organizations } from './organizations';

/**
 * What a local activity's call answered (temporal/activities/run-node.ts), written before the
 * activity returns. Temporal records a local activity's result only with the workflow task that
 * follows it; when that task is lost (a worker too busy to complete it in time), the task runs again
 * and so does the local activity. It then finds its answer here instead of calling again. Rows are
 * needed only until that task completes: the worker's sweeper prunes them 10 minutes after their
 * execution finished, and after a day in any case.
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
    /** `<Temporal run id>/<step key>/<execution attempt>/<hash of the request>` (run-node.ts). */
    callKey: text('call_key').notNull(),
    /** The activity's answer, `{ output }` or `{ failed }`, as JSON sealed with APP_KEY. */
    outcome: text('outcome').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.executionId, t.callKey] }),
    index('local_call_results_created').on(t.createdAt),
  ],
);
