import { describe, expect, it } from 'vitest';
import { canonicalJson, itemKey, valueAtPath } from './item-keys';
import { nameBasedUuid } from './name-based-uuid';

describe('polling item keys', () => {
  it('reads dot paths, array indexes included, and never walks into __proto__', () => {
    const body = { data: { items: [{ id: 'a' }, { id: 'b' }] } };
    expect(valueAtPath(body, 'data.items.1.id')).toBe('b');
    expect(valueAtPath(body, 'data.missing')).toBeNull();
    expect(valueAtPath({}, '__proto__.toString')).toBeNull();
  });

  it('hashes canonical JSON, so key order does not matter but values do', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    expect(itemKey({ a: 1, b: 2 }, undefined)).toBe(itemKey({ b: 2, a: 1 }, undefined));
    expect(itemKey({ a: 1, b: 2 }, undefined)).not.toBe(itemKey({ a: 1, b: 3 }, undefined));
    expect(itemKey({ a: 1 }, undefined)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('uses the dedup_key value when present, else falls back to the hash', () => {
    expect(itemKey({ id: 42, v: 'x' }, 'id')).toBe('42');
    expect(itemKey({ ref: { n: 1 } }, 'ref')).toBe('{"n":1}');
    expect(itemKey({ v: 'x' }, 'id')).toBe(itemKey({ v: 'x' }, undefined));
    expect(itemKey({ id: 'x'.repeat(500) }, 'id')).toMatch(/^sha256:/);
  });

  it('derives stable UUIDv5 execution ids', () => {
    const id = nameBasedUuid('poll:w:1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nameBasedUuid('poll:w:1')).toBe(id);
    expect(nameBasedUuid('poll:w:2')).not.toBe(id);
  });
});
