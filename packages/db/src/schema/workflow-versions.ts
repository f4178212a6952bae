import { index, integer, jsonb, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { organizations } from './organizations';
import { workflows } from './workflows';

/**
 * Every saved version of a workflow (create and each update), as the API presented it: secrets in
 * the trigger config masked, so history never holds one. Who saved it is the user or the API key.
 */
export const workflowVersions = pgTable(
  'workflow_versions',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    workflowId: uuid('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    snapshot: jsonb('snapshot').$type<Record<string, unknown>>().notNull(),
    savedByUserId: uuid('saved_by_user_id'),
    savedByApiKeyId: uuid('saved_by_api_key_id'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workflowId, t.version] }),
    index('workflow_versions_org').on(t.organizationId),
  ],
);
