import { schema, withTenant } from '@weft/db';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { PermissionGrant } from '../permissions';
import { storedText } from '../text';
import { refuseBeyondActingKey } from './acting-key';
import { apiKeyHint, generateApiKey, hashApiKey } from './key-format';
import { presentApiKey } from './present';

export const CreateApiKeyInput = z.object({
  name: storedText(z.string().trim().min(1).max(200)),
  permissions: z.array(PermissionGrant).min(1).max(50),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

/**
 * Creates a key and returns its plain value once. A key may only hand out permissions it holds
 * itself, so `api_keys.manage` is no ladder to `*`. The acting key's permissions are read in the
 * same transaction as the insert, never taken from the API's key cache, which may be a request
 * behind a narrowing. Without an acting key (the CLI, an operator) any permissions may be given.
 */
export async function createApiKey({ ctx, input }: VerbArgs<CreateApiKeyInput>) {
  const permissions = [...new Set(input.permissions)];
  const key = generateApiKey();
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    if (ctx.actor.apiKeyId)
      await refuseBeyondActingKey(tx, ctx.actor.apiKeyId, permissions, 'grant permissions');
    const [row] = await tx
      .insert(schema.apiKeys)
      .values({
        organizationId: ctx.organizationId,
        name: input.name,
        keyHash: hashApiKey(key),
        keyHint: apiKeyHint(key),
        permissions,
        createdByUserId: ctx.actor.userId ?? null,
        createdByApiKeyId: ctx.actor.apiKeyId ?? null,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    const metadata = presentApiKey(row);
    await recordAudit(tx, ctx, {
      action: 'created',
      entityType: 'api_key',
      entityId: row.id,
      newValues: metadata,
    });
    return {
      id: row.id,
      name: row.name,
      key,
      permissions: row.permissions,
      created_at: metadata.created_at,
      message: 'Store this key now: it is shown only once. A lost key must be revoked and replaced.',
    };
  });
}
