import { decodeUtf8Body, findUnsafeJsonValue, validationError } from '@weft/domain';
import type { MiddlewareHandler } from 'hono';

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/**
 * Parses JSON bodies once, before validation, and refuses what would crash or poison later code
 * with a 422: bytes that are not UTF-8, malformed JSON, a non-JSON content type, nesting deeper
 * than 64, NUL characters and lone surrogates (PostgreSQL cannot store either). The body-limit
 * middleware runs first.
 */
export const jsonBody: MiddlewareHandler = async (c, next) => {
  if (c.req.method !== 'POST' && c.req.method !== 'PUT' && c.req.method !== 'PATCH') return next();
  const raw = decodeUtf8Body(await c.req.arrayBuffer());
  let parsed: unknown = {};
  if (raw.trim() !== '') {
    const contentType = c.req.header('content-type') ?? '';
    if (!JSON_TYPE.test(contentType)) {
      throw validationError(
        { body: ['Content-Type must be application/json'] },
        'The request body must be JSON.',
      );
    }
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw validationError({ body: ['Malformed JSON'] }, 'The request body is not valid JSON.');
    }
    const problem = findUnsafeJsonValue(parsed);
    if (problem) throw validationError({ [problem.path || 'body']: [problem.message] });
  }
  // Hono's validator calls c.req.json(), which would parse the text a second time; hand it this
  // parse instead (an empty body counts as {} so validation names the missing fields).
  (c.req as unknown as { json: () => Promise<unknown> }).json = () => Promise.resolve(parsed);
  await next();
};
