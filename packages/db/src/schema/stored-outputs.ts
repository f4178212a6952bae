import { index, integer, jsonb, pgTable, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { executions } from './executions';
import { organizations } from './organizations';

/**
 * Node outputs too large for Temporal payloads: the activity stores the value here and hands the
 * workflow a reference, so user data never approaches Temporal's payload and history limits.
 */
export const storedOutputs = pgTable(
  'stored_outputs',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    executionId: uuid('execution_id')
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    value: jsonb('value').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('stored_outputs_execution').on(t.executionId)],
);
