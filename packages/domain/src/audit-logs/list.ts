import { schema, withTenant } from '@weft/db';
import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import type { PageRequest } from '../pagination';

export interface ListAuditLogsInput extends PageRequest {
  userId?: string;
  action?: string;
  entityType?: string;
  from?: Date;
  to?: Date;
}

/** The spec's filter says created/updated/deleted; the imperative forms mean the same. */
const ACTION_ALIASES: Record<string, string> = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
  revoke: 'revoked',
};

export function presentAuditLog(row: typeof schema.auditLogs.$inferSelect) {
  return {
    id: row.id,
    user_id: row.userId,
    api_key_id: row.apiKeyId,
    ip_address: row.ipAddress,
    action: row.action,
    entity_type: row.entityType,
    entity_id: row.entityId,
    old_values: row.oldValues,
    new_values: row.newValues,
    created_at: row.createdAt.toISOString(),
  };
}

export async function listAuditLogs({ ctx, input }: VerbArgs<ListAuditLogsInput>) {
  const t = schema.auditLogs;
  const where: SQL[] = [eq(t.organizationId, ctx.organizationId)];
  if (input.userId) where.push(eq(t.userId, input.userId));
  if (input.action) where.push(eq(t.action, ACTION_ALIASES[input.action] ?? input.action));
  if (input.entityType) where.push(eq(t.entityType, input.entityType));
  if (input.from) where.push(gte(t.createdAt, input.from));
  if (input.to) where.push(lte(t.createdAt, input.to));
  const condition = and(...where);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [rows, totals] = await Promise.all([
      tx
        .select()
        .from(t)
        .where(condition)
        .orderBy(desc(t.createdAt), desc(t.id))
        .limit(input.perPage)
        .offset((input.page - 1) * input.perPage),
      tx.select({ total: count() }).from(t).where(condition),
    ]);
    return { rows: rows.map(presentAuditLog), total: totals[0]?.total ?? 0 };
  });
}
