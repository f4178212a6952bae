import { createHash } from 'node:crypto';
import { resolvePath } from '@weft/graph';

/** Dot path (`data.items`, `results.0.id`) into parsed JSON; null when missing. Never walks into `__proto__`. */
export function valueAtPath(value: unknown, path: string): unknown {
  const segments = path.split('.').filter((s) => s.length > 0);
  // The interpolation resolver: one implementation of safe path walking for the whole product.
  return resolvePath(
    { trigger: value, nodes: {}, execution: { id: '', workflow_id: '', started_at: '' } },
    'trigger',
    segments.map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
  );
}

/** JSON with object keys sorted at every level, so equal data always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Longer keys are stored as their hash: the key column is an index, not a copy of the data. */
const MAX_KEY_LENGTH = 200;

/**
 * An item's dedup key: the value at `dedupKey` inside it when set and present (scalars as text,
 * objects as canonical JSON), else `sha256:` + the hash of the whole item's canonical JSON.
 */
export function itemKey(item: unknown, dedupKey: string | undefined): string {
  const value = dedupKey === undefined ? null : valueAtPath(item, dedupKey);
  if (value === null) return `sha256:${sha256(canonicalJson(item))}`;
  const text = typeof value === 'object' ? canonicalJson(value) : String(value);
  return text.length > MAX_KEY_LENGTH ? `sha256:${sha256(text)}` : text;
}
