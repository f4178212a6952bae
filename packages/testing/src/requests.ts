import type { Database } from '@weft/db';
import { createApiKey, createOrganization, type PermissionGrant } from '@weft/services';

export type JsonRequest = (
  method: string,
  path: string,
  options?: { key?: string; body?: unknown },
) => Promise<Response>;

/** In-process requests to a Hono app with an API key and a JSON body. */
export function jsonRequester(app: {
  request: (path: string, init: RequestInit) => Response | Promise<Response>;
}): JsonRequest {
  return (method, path, { key, body } = {}) => {
    const headers: Record<string, string> = {};
    if (key) headers['X-Api-Key'] = key;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return Promise.resolve(
      app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
  };
}

/** A new organization and a key holding `permissions` (default `*`). */
export async function createOrgWithKey(db: Database, name: string, permissions: PermissionGrant[] = ['*']) {
  const org = await createOrganization(db, { name });
  const created = await createApiKey({
    ctx: { db, organizationId: org.id, actor: {} },
    input: { name: `${name} key`, permissions },
  });
  return { organizationId: org.id, key: created.key, apiKeyId: created.id };
}
