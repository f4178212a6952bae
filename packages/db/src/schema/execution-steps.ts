import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { id } from './columns';
import { executions } from './executions';
import { organizations } from './organizations';

/** One run of one node in an execution (per loop iteration inside loops). */
export const executionSteps = pgTable(
  'execution_steps',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    executionId: uuid('execution_id')
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    nodeId: text('node_id').notNull(),
    nodeType: text('node_type').notNull(),
    /** -1 outside loops; the zero-based item index inside a loop body. */
    iteration: integer('iteration').notNull().default(-1),
    /** Order in which steps started, for display. */
    position: integer('position').notNull(),
    status: text('status', {
      enum: ['pending', 'running', 'waiting', 'completed', 'failed', 'skipped'],
    }).notNull(),
    attempt: integer('attempt').notNull().default(1),
    output: jsonb('output'),
    /** The config after interpolation, secrets masked: how every {{...}} resolved. */
    resolvedConfig: jsonb('resolved_config'),
    error: jsonb('error').$type<{ message: string; code: string } | null>(),
    /**
     * Where the output came from when the node did not run (DESIGN §15): `pin`, `recorded` (another
     * execution's step), `disabled` (input passed through), `stopped` (after a test run's stop_after).
     * Null: the node ran.
     */
    source: text('source', { enum: ['pin', 'recorded', 'disabled', 'stopped'] }),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }),
    completedAt: timestamp('completed_at', { withTimezone: true, precision: 3 }),
    durationMs: bigint('duration_ms', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('execution_steps_node').on(t.executionId, t.nodeId, t.iteration),
    index('execution_steps_org').on(t.organizationId),
    // Publishing an event looks up the executions paused on it: only the few waiting steps are
    // indexed, so the look-up stays small however many steps an organization has recorded.
    index('execution_steps_waiting_event')
      .on(t.organizationId, sql`(${t.resolvedConfig}->>'event')`)
      .where(sql`${t.status} = 'waiting' and ${t.nodeType} = 'action.wait_for_event'`),
  ],
);
