import { schema, type Tx } from '@weft/db';
import { eq } from 'drizzle-orm';
import { AppError } from '../errors';

/**
 * Refuses when `permissions` go beyond what the acting key holds, so `api_keys.manage` is no ladder:
 * a key can neither grant (create) nor take away (revoke) a key stronger than itself. The acting
 * key's permissions are read in the caller's transaction, never from a cache.
 */
export async function refuseBeyondActingKey(
  tx: Tx,
  actingKeyId: string,
  permissions: readonly string[],
  doing: 'grant permissions' | 'revoke a key with permissions',
): Promise<void> {
  const t = schema.apiKeys;
  const [acting] = await tx.select({ permissions: t.permissions }).from(t).where(eq(t.id, actingKeyId));
  const held = acting?.permissions ?? [];
  if (held.includes('*')) return;
  const beyond = permissions.filter((p) => !held.includes(p));
  if (beyond.length > 0) {
    throw new AppError('forbidden', `This key cannot ${doing} it does not hold: ${beyond.join(', ')}`);
  }
}
