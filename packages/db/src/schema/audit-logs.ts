import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { organizations } from './organizations';

/** Append-only: the runtime role has no UPDATE or DELETE on this table. */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id'),
    apiKeyId: uuid('api_key_id'),
    ipAddress: text('ip_address'),
    action: text('action').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id').notNull(),
    oldValues: jsonb('old_values'),
    newValues: jsonb('new_values'),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_logs_org_created').on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    // Retention (AUDIT_LOG_RETENTION_DAYS) deletes the oldest entries across organizations.
    index('audit_logs_created').on(t.createdAt),
  ],
);
