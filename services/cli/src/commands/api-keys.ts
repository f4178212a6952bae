import {
  CreateApiKeyInput,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  type ServiceContext,
} from '@weft/domain/admin';
import { withAppDatabase } from '../database';
import { printResult } from '../output';

const context = (db: ServiceContext['db'], organizationId: string): ServiceContext => ({
  db,
  organizationId,
  actor: {},
});

/** `weft api-key create`: prints the plain key once (only its hash is stored). */
export async function apiKeyCreateCommand(options: {
  org: string;
  name: string;
  permissions: string;
  json: boolean;
}) {
  const input = CreateApiKeyInput.parse({
    name: options.name,
    permissions: options.permissions
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  });
  const key = await withAppDatabase((db) => createApiKey({ ctx: context(db, options.org), input }), {
    org: options.org,
  });
  printResult(options.json, key, [
    `API key created: ${key.name} (${key.permissions.join(', ')})`,
    `id:  ${key.id}`,
    `key: ${key.key}`,
    key.message,
  ]);
}

/** `weft api-key list`: every key of the organization, newest first; never the key itself. */
export async function apiKeyListCommand(options: { org: string; json: boolean }) {
  const keys = await withAppDatabase(
    async (db) => {
      const ctx = context(db, options.org);
      const all = [];
      for (let page = 1; ; page++) {
        const { rows, total } = await listApiKeys({ ctx, input: { page, perPage: 100 } });
        all.push(...rows);
        if (page * 100 >= total || rows.length === 0) return all;
      }
    },
    { org: options.org, readOnly: true },
  );
  printResult(options.json, { api_keys: keys }, [
    keys.length === 0 ? 'No API keys.' : `${keys.length} API key(s):`,
    ...keys.map(
      (k) =>
        `  ${k.id}  ${k.name}  [${k.permissions.join(', ')}]  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}` +
        (k.last_used_at ? `  last used ${k.last_used_at}` : ''),
    ),
  ]);
}

/** `weft api-key revoke`: refused on every replica from the next request on. */
export async function apiKeyRevokeCommand(options: { org: string; id: string; json: boolean }) {
  const key = await withAppDatabase(
    (db) => revokeApiKey({ ctx: context(db, options.org), input: { id: options.id } }),
    { org: options.org },
  );
  printResult(options.json, key, [`API key revoked: ${key.name} (${key.id})`]);
}
