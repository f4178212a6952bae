import { validationError } from '@weft/services';
import type { MiddlewareHandler } from 'hono';

const MAX_DEPTH = 64;
const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/**
 * Parses JSON bodies once, before validation, and refuses what would crash or poison later code
 * with a 422: malformed JSON, a non-JSON content type, nesting deeper than 64, NUL characters and
 * lone surrogates (PostgreSQL cannot store either). The body-limit middleware runs first.
 */
export const jsonBody: MiddlewareHandler = async (c, next) => {
  if (c.req.method !== 'POST' && c.req.method !== 'PUT' && c.req.method !== 'PATCH') return next();
  const raw = await c.req.text();
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
    const problem = findUnsafeValue(parsed);
    if (problem) throw validationError({ [problem.path || 'body']: [problem.message] });
  }
  // Hono's validator calls c.req.json(), which would parse the text a second time; hand it this
  // parse instead (an empty body counts as {} so validation names the missing fields).
  (c.req as unknown as { json: () => Promise<unknown> }).json = () => Promise.resolve(parsed);
  await next();
};

/** Iterative walk (no recursion, so a 100k-deep array cannot overflow the stack). */
function findUnsafeValue(root: unknown): { path: string; message: string } | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof value === 'string') {
      if (value.includes('\0')) return { path, message: 'must not contain NUL characters' };
      if (!value.isWellFormed()) return { path, message: 'must be valid Unicode' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) return { path, message: `nesting deeper than ${MAX_DEPTH} levels` };
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes('\0') || !key.isWellFormed()) return { path, message: 'keys must be valid text' };
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}
