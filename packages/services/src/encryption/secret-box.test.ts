import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError } from './secret-box';

const key = randomBytes(32);

/** Flips one bit of the base64url part at `index` (1 = IV, 2 = ciphertext, 3 = MAC). */
function flipBit(stored: string, index: number): string {
  const parts = stored.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('createSecretBox', () => {
  it('round-trips text, including empty and non-ASCII strings', () => {
    const box = createSecretBox(key);
    for (const secret of ['whsec_abc', '', 'ünïcødé 🔐', 'x'.repeat(10_000)]) {
      const stored = box.encrypt(secret);
      expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(stored).not.toContain(secret || '\u0000');
      expect(box.decrypt(stored)).toBe(secret);
    }
  });

  it('uses a fresh IV each time, so equal secrets do not look equal at rest', () => {
    const box = createSecretBox(key);
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it.each([
    ['IV', 1],
    ['ciphertext', 2],
    ['MAC', 3],
  ])('refuses a value whose %s was altered', (_part, index) => {
    const box = createSecretBox(key);
    const tampered = flipBit(box.encrypt('whsec_secret'), index);
    expect(() => box.decrypt(tampered)).toThrow(SecretBoxError);
  });

  it('refuses a value encrypted under another APP_KEY', () => {
    const stored = createSecretBox(key).encrypt('whsec_secret');
    expect(() => createSecretBox(randomBytes(32)).decrypt(stored)).toThrow(/MAC mismatch/);
  });

  it('refuses malformed values and unknown versions', () => {
    const box = createSecretBox(key);
    const stored = box.encrypt('whsec_secret');
    for (const bad of ['', 'plain', stored.replace(/^v1/, 'v2'), `${stored}.extra`, 'v1...']) {
      expect(() => box.decrypt(bad)).toThrow(SecretBoxError);
    }
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(RangeError);
  });
});
