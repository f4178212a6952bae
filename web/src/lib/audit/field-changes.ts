import { diff } from 'jsondiffpatch';

export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
  kind: 'added' | 'removed' | 'changed';
}

const ABSENT = Symbol('absent');

/**
 * An audit record's old and new values as a list of field-level changes (`nodes.2.config.url`:
 * before → after), from jsondiffpatch's delta. Moved array items count as changed at their new index.
 */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const changes: FieldChange[] = [];
  const walk = (delta: unknown, path: string[]) => {
    if (Array.isArray(delta)) {
      const [a, b, c] = delta as unknown[];
      const at = path.join('.') || '(value)';
      if (delta.length === 1) changes.push({ path: at, before: ABSENT, after: a, kind: 'added' });
      else if (delta.length === 2) changes.push({ path: at, before: a, after: b, kind: 'changed' });
      else if (delta.length === 3 && b === 0 && c === 0)
        changes.push({ path: at, before: a, after: ABSENT, kind: 'removed' });
      else if (delta.length === 3 && c === 2)
        changes.push({ path: at, before: '(text)', after: '(text changed)', kind: 'changed' });
      return;
    }
    if (delta && typeof delta === 'object') {
      for (const [key, value] of Object.entries(delta as Record<string, unknown>)) {
        if (key === '_t') continue;
        walk(value, [...path, key.startsWith('_') ? key.slice(1) : key]);
      }
    }
  };
  walk(diff(before ?? {}, after ?? {}), []);
  return changes;
}

/** A value for the diff table: JSON text, or a dash when the field was not there. */
export function showValue(value: unknown): string {
  if (value === ABSENT) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
