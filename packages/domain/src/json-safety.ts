import { validationError } from './errors';

const MAX_DEPTH = 64;

/**
 * The first value in parsed JSON that would crash or poison later code: nesting deeper than 64,
 * NUL characters and lone surrogates (PostgreSQL cannot store either), in values or keys, and
 * numbers too large for a double (`1e309` parses as Infinity, which JSON.stringify turns into null).
 * Iterative walk (no recursion, so a 100k-deep array cannot overflow the stack).
 */
export function findUnsafeJsonValue(root: unknown): { path: string; message: string } | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof value === 'string') {
      if (value.includes('\0')) return { path, message: 'must not contain NUL characters' };
      if (!value.isWellFormed()) return { path, message: 'must be valid Unicode' };
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path, message: 'number is too large' };
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

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body as text, refusing bytes that are not UTF-8 with a 422: decoding them leniently
 * would store U+FFFD in their place, silently changing what the caller sent.
 */
export function decodeUtf8Body(body: Uint8Array | ArrayBuffer): string {
  try {
    return strictUtf8.decode(body);
  } catch {
    throw validationError({ body: ['must be UTF-8 text'] }, 'The request body is not valid JSON.');
  }
}
