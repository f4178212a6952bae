import { STORABLE_TEXT_PATTERN } from '@weft/domain';
import { z } from 'zod';
import { applyBodyRules } from './openapi-rules';
import { TIME_ZONE_SCHEMA } from './openapi-trigger-configs';

/**
 * The rules every route shares, written into the OpenAPI document in one place so that the
 * document says exactly what the server enforces (schemathesis checks it; issue 14):
 *
 * - the error responses the shared middleware gives: 401/403/429 (authenticate and permissions;
 *   403 also for a cross-site request to /auth/*), 404 for an unknown path id, 413 and 422 for
 *   request bodies (body-size and JSON-body middleware) and 422 for any bad parameter, all with
 *   the one error envelope, `#/components/schemas/Error`; 503 on every operation while the
 *   database is unreachable;
 * - the JSON-body middleware's refusal of NUL characters in any string and any key of a body
 *   (`STORABLE_TEXT_PATTERN` and `propertyNames`; only described in `JsonValue`, the free-form
 *   values). Not written: the same rule for lone surrogates (see STORABLE_TEXT_PATTERN);
 * - the CSRF token a session's writes need (`Csrf` beside `Session`).
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

const JSON_VALUE_REF = { $ref: '#/components/schemas/JsonValue' };

/**
 * Any JSON value: the free-form parts of a body (event data, node configs, inputs). The JSON-body
 * middleware refuses a NUL in any string or key at any depth; the schema only says so, because a
 * recursive schema that states it makes client generators drop every operation using it
 * (openapi-python-client cannot parse it; see docs/api-clients.md).
 */
const JSON_VALUE_SCHEMA = {
  description: 'Any JSON value; no string or key at any depth may hold a NUL character (422).',
};

/** A session changes something only with its CSRF token (middleware/authenticate.ts). */
function requireCsrfOfSessionWrites(method: string, op: Json): void {
  if (method === 'get') return;
  const requirements = op.security as Json[] | undefined;
  op.security = requirements?.map((requirement) =>
    'Session' in requirement ? { ...requirement, Csrf: [] } : requirement,
  );
}

/** A schema that allows anything (`{}`, perhaps with a description or default). */
function allowsAnything(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  return Object.keys(schema).every((key) => key === 'description' || key === 'default');
}

/** Free-form values of an object or array schema become JsonValue, in place. */
function constrainFreeForm(node: Json): void {
  const properties = node.properties as Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(properties ?? {})) {
    if (allowsAnything(value)) (properties as Json)[name] = { ...(value as Json), ...JSON_VALUE_REF };
  }
  for (const key of ['additionalProperties', 'items'] as const) {
    if (allowsAnything(node[key])) node[key] = { ...(node[key] as Json), ...JSON_VALUE_REF };
  }
}

/**
 * Adds the storable-text rule to every string and every object's keys of a request-body schema,
 * and makes its free-form values JsonValue, in place.
 */
function constrainBodySchema(schema: unknown, seen: Set<unknown>): void {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return;
  seen.add(schema);
  const node = schema as Json;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('string') && !node.pattern && !node.enum && !node.const && !node.format) {
    node.pattern = STORABLE_TEXT_PATTERN;
  }
  // `format: email` allows addresses zod's check refuses (quoted local parts, IP literals) and
  // refuses some it takes: the document gives zod's own pattern instead.
  if (node.format === 'email') {
    node.pattern ??= z.regexes.email.source;
    delete node.format;
  }
  if (types.includes('object') && !node.propertyNames) {
    node.propertyNames = { pattern: STORABLE_TEXT_PATTERN };
  }
  // Unknown properties are ignored, but the JSON-body middleware still reads their values.
  if (types.includes('object') && node.properties && !('additionalProperties' in node)) {
    node.additionalProperties = { ...JSON_VALUE_REF };
  }
  constrainFreeForm(node);
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
  schemas.JsonValue = JSON_VALUE_SCHEMA;
  schemas.TimeZone = TIME_ZONE_SCHEMA;
  const bodySchemas = new Set<unknown>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) {
      const op = (item as Json)[method] as Json | undefined;
      if (!op) continue;
      const responses = op.responses as Json;
      if (op.security) requireCsrfOfSessionWrites(method, op);
      for (const status of sharedStatuses(path, method, op)) responses[status] ??= errorResponse(status);
      // Free-text query values are stored text as well (storedText in the route's query schema).
      for (const parameter of (op.parameters ?? []) as Json[]) {
        if (parameter.in === 'query') constrainBodySchema(parameter.schema, new Set());
      }
      const body = (op.requestBody as Json | undefined)?.content as Json | undefined;
      const schema = (body?.['application/json'] as Json | undefined)?.schema as Json | undefined;
      if (schema) {
        applyBodyRules(op.operationId, schema);
        bodySchemas.add(schema);
      }
    }
  }
  // Named schemas a body refers to are body schemas too.
  const seen = new Set<unknown>();
  const refs = JSON.stringify([...bodySchemas]).matchAll(/"#\/components\/schemas\/([^"]+)"/g);
  for (const [, name] of refs) if (name) constrainBodySchema(schemas[name], seen);
  for (const schema of bodySchemas) constrainBodySchema(schema, seen);
  return doc;
}
