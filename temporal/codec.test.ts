import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { createEncryptionCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from './codec';

const appKey = randomBytes(32);
const codec = createEncryptionCodec(appKey);

const secret = 'sk_live_4242 +31612345678 trigger-secret';
const values: unknown[] = [
  { trigger: { phone: '+31612345678', note: secret }, items: [1, 2, 3] },
  'héllo ✓ 😀',
  null,
  undefined,
  new Uint8Array([0, 1, 2, 250, 255]),
  new Uint8Array(),
];

function toPayload(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value);
}

function metadataText(payload: Payload, key: string): string | undefined {
  const raw = payload.metadata?.[key];
  return raw ? new TextDecoder().decode(raw) : undefined;
}

async function encodeOne(payload: Payload): Promise<Payload> {
  const [encoded] = await codec.encode([payload]);
  if (!encoded) throw new Error('no payload');
  return encoded;
}

function flipByte(payload: Payload, index: number): Payload {
  const data = new Uint8Array(payload.data ?? []);
  data[index] = (data[index] ?? 0) ^ 0x01;
  return { ...payload, data };
}

describe('createEncryptionCodec', () => {
  it('round-trips JSON, string, null, undefined and binary payloads', async () => {
    const payloads = values.map(toPayload);
    const encoded = await codec.encode(payloads);
    expect(encoded).toHaveLength(payloads.length);
    const decoded = await codec.decode(encoded);
    expect(decoded).toEqual(payloads);
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual(values);
  });

  it('keeps a payload without data without data', async () => {
    const payload: Payload = { metadata: { encoding: new TextEncoder().encode('binary/null') } };
    const [decoded] = await codec.decode([await encodeOne(payload)]);
    expect(decoded).toEqual(payload);
    expect(decoded && 'data' in decoded).toBe(false);
  });

  it('marks encrypted payloads with the encoding and a short key id', async () => {
    const encoded = await encodeOne(toPayload({ a: 1 }));
    expect(metadataText(encoded, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(metadataText(encoded, KEY_ID_METADATA)).toMatch(/^[0-9a-f]{8}$/);
    expect(Object.keys(encoded.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA].sort());
    // The same APP_KEY always gives the same id; another key gives another.
    const again = await createEncryptionCodec(Buffer.from(appKey)).encode([toPayload(1)]);
    expect(metadataText(again[0] ?? {}, KEY_ID_METADATA)).toBe(metadataText(encoded, KEY_ID_METADATA));
    const other = await createEncryptionCodec(randomBytes(32)).encode([toPayload(1)]);
    expect(metadataText(other[0] ?? {}, KEY_ID_METADATA)).not.toBe(metadataText(encoded, KEY_ID_METADATA));
  });

  it('does not leave the plain text or the original metadata in the ciphertext', async () => {
    const payload = toPayload({ note: secret });
    const encoded = await encodeOne(payload);
    const data = Buffer.from(encoded.data ?? []);
    expect(data.includes(Buffer.from(secret))).toBe(false);
    expect(data.includes(Buffer.from('json/plain'))).toBe(false);
    expect(data.includes(Buffer.from(payload.data ?? []).toString('base64'))).toBe(false);
  });

  it('uses a fresh IV for every encoding of the same payload', async () => {
    const payload = toPayload({ same: true });
    const [a, b] = await codec.encode([payload, payload]);
    const c = await encodeOne(payload);
    const ivs = [a, b, c].map((p) =>
      Buffer.from(p?.data ?? [])
        .subarray(0, 12)
        .toString('hex'),
    );
    expect(new Set(ivs).size).toBe(3);
    expect(Buffer.from(a?.data ?? []).equals(Buffer.from(b?.data ?? []))).toBe(false);
  });

  it('throws when any byte of the ciphertext, IV or tag is flipped', async () => {
    const encoded = await encodeOne(toPayload({ amount: 100 }));
    const length = encoded.data?.length ?? 0;
    for (const index of [0, 11, 12, Math.floor(length / 2), length - 17, length - 1]) {
      await expect(codec.decode([flipByte(encoded, index)])).rejects.toThrow(/authentication/);
    }
  });

  it('throws on a truncated payload', async () => {
    const encoded = await encodeOne(toPayload('x'));
    await expect(codec.decode([{ ...encoded, data: encoded.data?.subarray(0, 20) }])).rejects.toThrow(
      /too short/,
    );
  });

  it('throws when decoding with another key', async () => {
    const encoded = await encodeOne(toPayload({ a: 1 }));
    const otherCodec = createEncryptionCodec(randomBytes(32));
    await expect(otherCodec.decode([encoded])).rejects.toThrow(
      /this codec holds APP_KEY and APP_KEYS_PREVIOUS keys/,
    );
    // Even when the key id is forged to match, authentication fails.
    const [probe] = await otherCodec.encode([toPayload(0)]);
    const forged: Payload = {
      ...encoded,
      metadata: {
        ...encoded.metadata,
        [KEY_ID_METADATA]: probe?.metadata?.[KEY_ID_METADATA] ?? new Uint8Array(),
      },
    };
    await expect(otherCodec.decode([forged])).rejects.toThrow(/authentication/);
  });

  it('decodes a payload encoded under a previous APP_KEY and encodes with the current one', async () => {
    const previous = await encodeOne(toPayload({ sealed: 'before the rotation' }));
    const newKey = randomBytes(32);
    const ring = createEncryptionCodec(newKey, [appKey]);
    const [decoded] = await ring.decode([previous]);
    expect(defaultPayloadConverter.fromPayload(decoded as Payload)).toEqual({
      sealed: 'before the rotation',
    });
    const [fresh] = await ring.encode([toPayload('after')]);
    const [currentOnly] = await createEncryptionCodec(newKey).encode([toPayload('probe')]);
    expect(metadataText(fresh as Payload, KEY_ID_METADATA)).toBe(
      metadataText(currentOnly as Payload, KEY_ID_METADATA),
    );
    // The new key alone opens what it sealed, and not what the previous key sealed.
    const [after] = await createEncryptionCodec(newKey).decode([fresh as Payload]);
    expect(defaultPayloadConverter.fromPayload(after as Payload)).toBe('after');
    await expect(createEncryptionCodec(newKey).decode([previous])).rejects.toThrow(/holds APP_KEY/);
  });

  it('passes payloads that are not encrypted through decode unchanged', async () => {
    const plain = [toPayload({ a: 1 }), toPayload(null), toPayload(new Uint8Array([1, 2])), { metadata: {} }];
    const decoded = await codec.decode(plain);
    expect(decoded).toEqual(plain);
    decoded.forEach((payload, i) => {
      expect(payload).toBe(plain[i]);
    });
  });

  it('decodes a mix of encrypted and plain payloads in order', async () => {
    const plain = toPayload('plain');
    const [encrypted] = await codec.encode([toPayload('secret')]);
    if (!encrypted) throw new Error('no payload');
    const decoded = await codec.decode([plain, encrypted, plain]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual(['plain', 'secret', 'plain']);
  });

  it('refuses an APP_KEY that is not 32 bytes', () => {
    expect(() => createEncryptionCodec(randomBytes(16))).toThrow(/32 bytes/);
  });
});
