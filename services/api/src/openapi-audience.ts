/**
 * Who a served OpenAPI document is for (issue 20). Client generators give the configured token to
 * every scheme an operation lists, not to one alternative: offered an API key, a bearer token and
 * the web app's session cookie with its CSRF header, hey-api's client sends the key four times.
 *
 * - `api` (the default, `GET /api/v1/openapi.json`): one scheme, `Bearer` (an API key as
 *   `Authorization: Bearer`), so a generated client sends the key once; the operations only a
 *   browser session can call (`/me…`, `/auth/logout`, `/auth/login/two-factor`) are left out.
 * - `web` (`?audience=web`): every operation, with the session schemes beside the key's: the web
 *   app's generated types and the contract fuzz's session run read it.
 */
export const OPENAPI_AUDIENCES = ['api', 'web'] as const;
export type OpenApiAudience = (typeof OPENAPI_AUDIENCES)[number];

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** The one scheme of the API clients' document (the server also takes the key in X-Api-Key). */
const API_CLIENT_SCHEME = 'Bearer';

const SCHEMA_REF = /"#\/components\/schemas\/([^"]+)"/g;

/** Named schemas the paths refer to, directly or through other named schemas. */
function referencedSchemas(paths: unknown, schemas: Json): Set<string> {
  const found = new Set<string>();
  let pending = [JSON.stringify(paths)];
  while (pending.length > 0) {
    const next: string[] = [];
    for (const text of pending) {
      for (const [, name] of text.matchAll(SCHEMA_REF)) {
        if (!name || found.has(name)) continue;
        found.add(name);
        next.push(JSON.stringify(schemas[name] ?? null));
      }
    }
    pending = next;
  }
  return found;
}

/**
 * The API clients' document from the complete one, in place: each operation keeps only the
 * `Bearer` alternative, one without it is dropped (a session-only route), as are the schemes and
 * named schemas nothing refers to any more. An operation that takes no credentials stays.
 */
export function narrowToApiClients(doc: Json): Json {
  const paths = doc.paths as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      const security = op?.security as Json[] | undefined;
      if (!op || !security?.length) continue;
      const kept = security.filter((requirement) => {
        const schemes = Object.keys(requirement);
        return schemes.length === 1 && schemes[0] === API_CLIENT_SCHEME;
      });
      if (kept.length > 0) op.security = kept;
      else delete item[method];
    }
    if (!METHODS.some((method) => item[method])) delete paths[path];
  }
  const components = doc.components as Json;
  const schemes = components.securitySchemes as Json;
  components.securitySchemes = { [API_CLIENT_SCHEME]: schemes[API_CLIENT_SCHEME] };
  const schemas = components.schemas as Json;
  const used = referencedSchemas([paths, doc.webhooks], schemas);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return doc;
}
