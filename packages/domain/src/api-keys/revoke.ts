import { schema, withTenant } from '@weft/db';
import { and, eq, isNull } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { refuseBeyondActingKey } from './acting-key';
import { presentApiKey } from './present';

/**
 * Revokes at once: API replicas cache keys, but every request served from a cache has its key
 * re-checked by PostgreSQL before its work (packages/db/src/caller.ts), so the next request with
 * the key is refused on every replica. An acting key may revoke only keys whose permissions it holds
 * itself (403 otherwise): a narrow key cannot take down a `*` key.
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
    if (ctx.actor.apiKeyId) {
      await refuseBeyondActingKey(
        tx,
        ctx.actor.apiKeyId,
        existing.permissions,
        'revoke a key with permissions',
      );
    }
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
