import { schema, withTenant } from '@weft/db';
import { and, eq, isNull } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentApiKey } from './present';

/**
 * Revokes at once: API replicas cache keys, but every request served from a cache has its key
 * re-checked by PostgreSQL before its work (packages/db/src/caller.ts), so the next request with
 * the key is refused on every replica.
 */
export async function revokeApiKey({ ctx, input }: VerbArgs<{ id: string }>) {
  if (!isUuid(input.id)) throw notFound('API key');
  const t = schema.apiKeys;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select()
      .from(t)
      .where(and(eq(t.id, input.id), eq(t.organizationId, ctx.organizationId)))
      .for('update');
    if (!existing) throw notFound('API key');
    if (existing.revokedAt) return presentApiKey(existing);
    const [row] = await tx
      .update(t)
      .set({ revokedAt: new Date() })
      .where(and(eq(t.id, input.id), isNull(t.revokedAt)))
      .returning();
    if (!row) throw notFound('API key');
    await recordAudit(tx, ctx, {
      action: 'revoked',
      entityType: 'api_key',
      entityId: row.id,
      oldValues: presentApiKey(existing),
      newValues: presentApiKey(row),
    });
    return presentApiKey(row);
  });
}
