import { sql } from 'drizzle-orm';
import {
  bigint,
  type ExtraConfigColumn,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';
import { organizations } from './organizations';

/** Index columns in the list's order: `started_at desc, id desc` exactly as PostgreSQL writes it. */
const newestFirst = (startedAt: ExtraConfigColumn, id: ExtraConfigColumn) => [
  startedAt.desc().nullsFirst(),
  id.desc().nullsFirst(),
];

/**
 * One run of a workflow. Keeps a snapshot of the graph it started with (editing the workflow never
 * changes a running execution) and outlives the workflow itself (no foreign key to workflows).
 */
export const executions = pgTable(
  'executions',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    workflowId: uuid('workflow_id').notNull(),
    workflowName: text('workflow_name').notNull(),
    workflowVersion: integer('workflow_version').notNull(),
    /** `{trigger_type, trigger_config, nodes, edges}` as they were when the execution started. */
    graph: jsonb('graph').$type<Record<string, unknown>>().notNull(),
    status: text('status', {
      enum: ['pending', 'running', 'waiting', 'success', 'partial', 'failed', 'cancelled'],
    }).notNull(),
    trigger: text('trigger').notNull(),
    event: text('event'),
    triggerPayload: jsonb('trigger_payload').notNull(),
    attempt: integer('attempt').notNull().default(1),
    error: jsonb('error').$type<{ message: string; code: string } | null>(),
    parentExecutionId: uuid('parent_execution_id'),
    /** `test`: started from the workbench (test run or replay): pins apply, nothing is announced (DESIGN §15). */
    mode: text('mode', { enum: ['production', 'test'] })
      .notNull()
      .default('production'),
    /** The execution a replay re-runs (no foreign key: the original may be pruned first). */
    replayOf: uuid('replay_of'),
    /**
     * The partial execution this one retries from its failed steps: its completed steps' outputs are
     * reused, its failed steps and everything after them run again (no foreign key, as above).
     */
    retryOf: uuid('retry_of'),
    /** A test run's `start_at`, `stop_after` and the execution earlier steps take their outputs from. */
    testOptions: jsonb('test_options').$type<{
      start_at?: string;
      stop_after?: string;
      source_execution_id?: string;
    } | null>(),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, precision: 3 }),
    durationMs: bigint('duration_ms', { mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // The list is ordered by (started_at, id) newest first and paged by that key (keyset): each index
    // ends with both columns, so a filtered page is one index range however deep it is. NULLS FIRST is
    // PostgreSQL's own order for DESC: an index built DESC NULLS LAST cannot serve `order by … desc`
    // (the planner then sorts every row of the organization), even on NOT NULL columns.
    index('executions_org_started').on(t.organizationId, ...newestFirst(t.startedAt, t.id)),
    index('executions_org_workflow_started').on(
      t.organizationId,
      t.workflowId,
      ...newestFirst(t.startedAt, t.id),
    ),
    index('executions_org_status_started').on(t.organizationId, t.status, ...newestFirst(t.startedAt, t.id)),
    // Test runs are few: the `?mode=test` list (and start_at's "last run") reads only them.
    index('executions_org_test_started')
      .on(t.organizationId, ...newestFirst(t.startedAt, t.id))
      .where(sql`${t.mode} = 'test'`),
    // Retention: the pruner walks finished executions oldest first across all organizations; running
    // and waiting ones are not in this index at all.
    index('executions_finished_completed')
      .on(t.completedAt)
      .where(sql`${t.status} in ('success', 'partial', 'failed', 'cancelled')`),
  ],
);
