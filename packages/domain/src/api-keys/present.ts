import type { schema } from '@weft/db';

/** Key metadata as the API shows it: never the key, never its hash. */
export function presentApiKey(row: typeof schema.apiKeys.$inferSelect) {
  return {
    id: row.id,
    name: row.name,
    key_hint: row.keyHint,
    permissions: row.permissions,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}
export type ApiKeyMetadata = ReturnType<typeof presentApiKey>;
