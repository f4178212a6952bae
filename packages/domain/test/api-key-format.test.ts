import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PREFIX,
  apiKeyHint,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from '../src/api-keys/key-format';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY = 40;
const CHECKSUM = 6;
const LENGTH = API_KEY_PREFIX.length + BODY + CHECKSUM;

const replaceAt = (s: string, i: number, c: string) => s.slice(0, i) + c + s.slice(i + 1);

describe('generateApiKey', () => {
  it('is weft_ + 46 base62 characters and well-formed', () => {
    expect(API_KEY_PREFIX).toBe('weft_');
    const key = generateApiKey();
    expect(key).toMatch(/^weft_[0-9A-Za-z]{46}$/);
    expect(key).toHaveLength(LENGTH);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('gives 1,000 distinct, well-formed keys', () => {
    const keys = Array.from({ length: 1000 }, generateApiKey);
    expect(new Set(keys).size).toBe(1000);
    expect(new Set(keys.map((k) => k.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY))).size).toBe(
      1000,
    );
    for (const key of keys) expect(isWellFormedApiKey(key), key).toBe(true);
  });

  it('draws the random body uniformly from all 62 characters (no modulo bias)', () => {
    const counts = new Map<string, number>(Array.from(ALPHABET, (c) => [c, 0]));
    const keys = Array.from({ length: 1000 }, generateApiKey);
    for (const key of keys) {
      for (const c of key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY)) {
        counts.set(c, (counts.get(c) ?? 0) + 1);
      }
    }
    expect(counts.size).toBe(62);
    const expected = (1000 * BODY) / 62;
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: mean 61, and above 140 has a probability far below one in a million.
    // A `byte % 62` without rejection sampling gives a value in the hundreds.
    expect(chiSquare).toBeLessThan(140);
    for (const n of counts.values()) expect(n).toBeGreaterThan(0);
  });
});

describe('isWellFormedApiKey', () => {
  const key = generateApiKey();

  it('rejects every one-character change, anywhere after the prefix (checksum)', () => {
    for (let i = API_KEY_PREFIX.length; i < key.length; i++) {
      for (const c of ALPHABET) {
        if (c === key[i]) continue;
        const changed = replaceAt(key, i, c);
        expect(isWellFormedApiKey(changed), `position ${i} → ${c}`).toBe(false);
      }
    }
  });

  it('rejects two swapped adjacent characters of the body', () => {
    fc.assert(
      fc.property(fc.integer({ min: API_KEY_PREFIX.length, max: LENGTH - CHECKSUM - 2 }), (i) => {
        const a = key[i] as string;
        const b = key[i + 1] as string;
        fc.pre(a !== b);
        expect(isWellFormedApiKey(key.slice(0, i) + b + a + key.slice(i + 2))).toBe(false);
      }),
    );
  });

  it('rejects a random body with a random checksum (an invented key)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 46, maxLength: 46 }), (rest) => {
        // The odds of hitting the right checksum by chance are 1 in 2^32.
        expect(isWellFormedApiKey(`${API_KEY_PREFIX}${rest}`)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('rejects a wrong prefix, even with a valid body and checksum', () => {
    const rest = key.slice(API_KEY_PREFIX.length);
    for (const prefix of ['WEFT_', 'weft-', 'weftx', 'wef_', 'sk_', '', 'weft__']) {
      expect(isWellFormedApiKey(`${prefix}${rest}`), prefix).toBe(false);
    }
  });

  it('rejects a wrong length', () => {
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}0`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, LENGTH - CHECKSUM))).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
    expect(isWellFormedApiKey(API_KEY_PREFIX)).toBe(false);
  });

  it('rejects surrounding whitespace and characters outside base62', () => {
    expect(isWellFormedApiKey(`${key}\n`)).toBe(false);
    expect(isWellFormedApiKey(` ${key}`)).toBe(false);
    expect(isWellFormedApiKey(replaceAt(key, 10, '-'))).toBe(false);
    expect(isWellFormedApiKey(replaceAt(key, 10, 'é'))).toBe(false);
  });
});

describe('hashApiKey', () => {
  it('is the lower-case hex SHA-256 of the key', () => {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
    expect(hashApiKey(key)).toBe(hash);
    // A known vector, so a change of algorithm or encoding cannot pass unnoticed.
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('differs for different keys and does not contain the key', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(hashApiKey(a)).not.toBe(hashApiKey(b));
    expect(hashApiKey(a)).not.toContain(a.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + 8));
  });
});

describe('apiKeyHint', () => {
  it('shows the prefix, 4 characters and the last 4, never the secret body', () => {
    const key = generateApiKey();
    const hint = apiKeyHint(key);
    expect(hint).toBe(`${key.slice(0, 9)}…${key.slice(-4)}`);
    expect(hint.length).toBeLessThan(16);
    expect(hint).not.toContain(key.slice(9, 20));
  });
});
