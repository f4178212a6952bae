import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';
import { organizations } from './organizations';

export const workflows = pgTable(
  'workflows',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    triggerType: text('trigger_type').notNull(),
    triggerConfig: jsonb('trigger_config').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: ['active', 'inactive', 'draft'] }).notNull(),
    nodes: jsonb('nodes').$type<unknown[]>().notNull(),
    edges: jsonb('edges').$type<unknown[]>().notNull(),
    /** Sticky notes on the editor's canvas: documentation only, never run. */
    notes: jsonb('notes').$type<unknown[]>().notNull().default([]),
    /** Goes up by one on every update; executions record the version they ran. */
    version: integer('version').notNull().default(1),
    /** Secret part of the inbound webhook URL `{site_url}/api/hooks/<token>` (webhook trigger only). */
    webhookToken: text('webhook_token').unique('workflows_webhook_token'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('workflows_org_created').on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    index('workflows_org_status').on(t.organizationId, t.status),
  ],
);
