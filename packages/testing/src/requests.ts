import type { Database } from '@weft/db';
import { createApiKey, createOrganization, type PermissionGrant } from '@weft/domain';
import { registerCanary, registerRequestSecrets } from './canaries';

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
    ).then(async (response) => {
      await registerRequestSecrets(path, body, response);
      return response;
    });
  };
}

/** A new organization and a key holding `permissions` (default `*`). */
export async function createOrgWithKey(db: Database, name: string, permissions: PermissionGrant[] = ['*']) {
  const org = await createOrganization(db, { name });
  const created = await createApiKey({
    ctx: { db, organizationId: org.id, actor: {} },
    input: { name: `${name} key`, permissions },
  });
  registerCanary('api_key', created.key);
  return { organizationId: org.id, key: created.key, apiKeyId: created.id };
}

export const TERMINAL_STATUSES = new Set(['success', 'partial', 'failed', 'cancelled']);

/**
 * Polls GET /executions/{id} until `done(execution)` or the deadline. Resolves the execution, or
 * `{ timedOut: true, last }` so each harness can explain a timeout its own way.
 */
export async function pollExecution(
  request: JsonRequest,
  key: string,
  id: string,
  options: { done?: (execution: any) => boolean; timeoutMs: number; intervalMs: number },
): Promise<{ timedOut: false; execution: any } | { timedOut: true; last: any }> {
  const done = options.done ?? ((e: any) => TERMINAL_STATUSES.has(e.status));
  const deadline = Date.now() + options.timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const res = await request('GET', `/api/v1/executions/${id}`, { key });
    last = await res.json();
    if (res.status === 200 && done(last)) return { timedOut: false, execution: last };
    await new Promise((r) => setTimeout(r, options.intervalMs));
  }
  return { timedOut: true, last };
}
