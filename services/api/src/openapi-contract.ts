import { STORABLE_TEXT_PATTERN } from '@weft/services';

/**
 * The rules every route shares, written into the OpenAPI document in one place so that the
 * document says exactly what the server enforces (schemathesis checks it; issue 14):
 *
 * - the error responses the shared middleware gives: 401/403/429 (authenticate and permissions;
 *   403 also for a cross-site request to /auth/*), 404 for an unknown path id, 413 and 422 for
 *   request bodies (body-size and JSON-body middleware) and 422 for any bad parameter, all with
 *   the one error envelope, `#/components/schemas/Error`; 503 on every operation while the
 *   database is unreachable;
 * - the JSON-body middleware's refusal of NUL characters in any string of a body
 *   (`STORABLE_TEXT_PATTERN`). Not written: the same rule for keys and for values inside free-form
 *   objects (`propertyNames` and a recursive JSON-value schema made the web client's generated
 *   types unusable), and for lone surrogates (see STORABLE_TEXT_PATTERN).
 *
 * Route files declare only what is theirs (their 409s, their 404 without a path id).
 */
type Json = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const WRITES = new Set(['put', 'post', 'patch']);

const DESCRIPTIONS: Record<number, string> = {
  401: 'Missing, invalid or revoked credentials',
  403: 'The caller lacks the permission, or the request is cross-site',
  404: 'Not found',
  413: 'The request body is too large',
  422: 'Validation error: a parameter, header or body field is invalid (see error.fields)',
  429: 'Rate limit exceeded; see Retry-After',
  503: 'The database is unavailable for the moment; retry after Retry-After',
};

function errorResponse(status: number): Json {
  const response: Json = {
    description: DESCRIPTIONS[status],
    content: { 'application/json': { schema: ERROR_REF } },
  };
  if (status === 429 || status === 503) {
    response.headers = { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' } };
  }
  return response;
}

/** The statuses the shared middleware can answer for this operation. */
function sharedStatuses(path: string, method: string, op: Json): number[] {
  const statuses: number[] = [];
  const parameters = (op.parameters as Json[] | undefined) ?? [];
  if ((op.security as unknown[] | undefined)?.length) statuses.push(401, 403, 429);
  if (path.startsWith('/auth/') && WRITES.has(method)) statuses.push(403);
  if (parameters.some((p) => p.in === 'path')) statuses.push(404);
  if (WRITES.has(method)) statuses.push(413, 422);
  if (parameters.length > 0) statuses.push(422);
  // Every operation reads or writes PostgreSQL: while it is down the answer is a 503 (error-handler.ts).
  statuses.push(503);
  return statuses;
}

/** Adds the storable-text rule to every string of a request-body schema, in place. */
function constrainBodySchema(schema: unknown, seen: Set<unknown>): void {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return;
  seen.add(schema);
  const node = schema as Json;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('string') && !node.pattern && !node.enum && !node.const && !node.format) {
    node.pattern = STORABLE_TEXT_PATTERN;
  }
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) constrainBodySchema(item, seen);
    } else if (typeof value === 'object') {
      constrainBodySchema(value, seen);
    }
  }
}

/** Completes a generated document with the shared rules above; returns the same object. */
export function completeOpenApiDocument(doc: Json): Json {
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
  const bodySchemas = new Set<unknown>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) {
      const op = (item as Json)[method] as Json | undefined;
      if (!op) continue;
      const responses = op.responses as Json;
      for (const status of sharedStatuses(path, method, op)) responses[status] ??= errorResponse(status);
      const body = (op.requestBody as Json | undefined)?.content as Json | undefined;
      const schema = (body?.['application/json'] as Json | undefined)?.schema;
      if (schema) bodySchemas.add(schema);
    }
  }
  // Named schemas a body refers to are body schemas too.
  const seen = new Set<unknown>();
  const refs = JSON.stringify([...bodySchemas]).matchAll(/"#\/components\/schemas\/([^"]+)"/g);
  for (const [, name] of refs) if (name) constrainBodySchema(schemas[name], seen);
  for (const schema of bodySchemas) constrainBodySchema(schema, seen);
  return doc;
}
