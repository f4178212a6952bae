import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appKeyId, createSecretBox, SecretBoxError } from './secret-box';

const key = randomBytes(32);

/** Flips one bit of the base64url part at `index` (2 = IV, 3 = ciphertext, 4 = MAC). */
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
      expect(stored).toMatch(/^v2\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(stored).not.toContain(secret || '\u0000');
      expect(box.decrypt(stored)).toBe(secret);
    }
  });

  it('uses a fresh IV each time, so equal secrets do not look equal at rest', () => {
    const box = createSecretBox(key);
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it.each([
    ['IV', 2],
    ['ciphertext', 3],
    ['MAC', 4],
  ])('refuses a value whose %s was altered', (_part, index) => {
    const box = createSecretBox(key);
    const tampered = flipBit(box.encrypt('whsec_secret'), index);
    expect(() => box.decrypt(tampered)).toThrow(SecretBoxError);
  });

  it('refuses a value encrypted under another APP_KEY, naming the key it needs', () => {
    const other = randomBytes(32);
    const stored = createSecretBox(key).encrypt('whsec_secret');
    expect(() => createSecretBox(other).decrypt(stored)).toThrow(
      new RegExp(`Sealed with APP_KEY ${appKeyId(key)}, which is neither APP_KEY nor in APP_KEYS_PREVIOUS`),
    );
  });

  it('marks "no key of the ring opens it" (an operator fix, a 503) apart from an altered value (a 500)', () => {
    const stored = createSecretBox(key).encrypt('whsec_secret');
    const refusal = (box: ReturnType<typeof createSecretBox>, value: string) => {
      try {
        box.decrypt(value);
      } catch (error) {
        return error as SecretBoxError;
      }
      throw new Error('decrypt did not refuse');
    };
    expect(refusal(createSecretBox(randomBytes(32)), stored).keyNotHeld).toBe(true);
    expect(refusal(createSecretBox(key), flipBit(stored, 4)).keyNotHeld).toBe(false);
    expect(refusal(createSecretBox(key), 'plain').keyNotHeld).toBe(false);
  });

  it('refuses malformed values and unknown versions', () => {
    const box = createSecretBox(key);
    const stored = box.encrypt('whsec_secret');
    const badKeyId = stored.replace(/^v2\.[0-9a-f]{8}/, 'v2.XYZ');
    for (const bad of [
      '',
      'plain',
      stored.replace(/^v2/, 'v3'),
      `${stored}.extra`,
      'v1...',
      'v2....',
      badKeyId,
    ]) {
      expect(() => box.decrypt(bad)).toThrow(SecretBoxError);
    }
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(RangeError);
  });
});

/** A value as the box wrote it before the key ring (v1: no key id), to prove those still open. */
function sealV1(appKey: Uint8Array, plaintext: string): string {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), info, 32));
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', derive('weft secret-box v1 aes-256-cbc'), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const mac = createHmac('sha256', derive('weft secret-box v1 hmac-sha256'))
    .update('v1')
    .update(iv)
    .update(ciphertext)
    .digest();
  return ['v1', ...[iv, ciphertext, mac].map((part) => part.toString('base64url'))].join('.');
}

describe('the key ring (APP_KEY and APP_KEYS_PREVIOUS)', () => {
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);

  it('writes with the current key and reads values sealed under a previous one', () => {
    const underA = createSecretBox(keyA).encrypt('sealed under A');
    const ring = createSecretBox(keyB, [keyA]);
    expect(ring.decrypt(underA)).toBe('sealed under A');
    const underB = ring.encrypt('sealed under B');
    expect(underB.startsWith(`v2.${appKeyId(keyB)}.`)).toBe(true);
    expect(ring.isCurrent(underB)).toBe(true);
    expect(ring.isCurrent(underA)).toBe(false);
    // Once A is dropped from the ring, only what B sealed opens.
    expect(createSecretBox(keyB).decrypt(underB)).toBe('sealed under B');
    expect(() => createSecretBox(keyB).decrypt(underA)).toThrow(SecretBoxError);
  });

  it('opens v1 values (no key id) by trying each key, and never calls them current', () => {
    const old = sealV1(keyA, 'from before the ring');
    expect(createSecretBox(keyA).decrypt(old)).toBe('from before the ring');
    expect(createSecretBox(keyB, [keyA]).decrypt(old)).toBe('from before the ring');
    expect(createSecretBox(keyA).isCurrent(old)).toBe(false);
    expect(() => createSecretBox(keyB).decrypt(old)).toThrow(/not in the ring \(ring: [0-9a-f]{8}\)/);
  });

  it('refuses a value whose MAC was altered even when its key is in the ring', () => {
    const underA = createSecretBox(keyA).encrypt('whsec_secret');
    expect(() => createSecretBox(keyB, [keyA]).decrypt(flipBit(underA, 4))).toThrow(/the value was altered/);
    expect(() => createSecretBox(keyB, [keyA]).decrypt(flipBit(sealV1(keyA, 'x'), 3))).toThrow(
      /MAC mismatch/,
    );
  });

  it('refuses a v2 value whose key id was swapped for another key of the ring', () => {
    const underA = createSecretBox(keyA).encrypt('whsec_secret');
    const relabelled = underA.replace(appKeyId(keyA), appKeyId(keyB));
    expect(() => createSecretBox(keyB, [keyA]).decrypt(relabelled)).toThrow(SecretBoxError);
  });
});
