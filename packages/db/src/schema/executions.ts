import { bigint, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';
import { organizations } from './organizations';

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
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, precision: 3 }),
    durationMs: bigint('duration_ms', { mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('executions_org_started').on(t.organizationId, t.startedAt.desc(), t.id.desc()),
    index('executions_org_workflow').on(t.organizationId, t.workflowId, t.startedAt.desc()),
    index('executions_org_status').on(t.organizationId, t.status),
  ],
);
