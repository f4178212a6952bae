import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { type Payload, type PayloadCodec, ValueError } from '@temporalio/common';

/** Stored in Temporal history: changing any of these makes existing histories unreadable. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const HKDF_INFO = 'weft/temporal-payload-codec';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The plaintext sealed into each encrypted payload: the original payload in the proto3 JSON form of
 * `temporal.api.common.v1.Payload` (metadata values and data in base64). We would rather use that
 * message's protobuf encoding, but `@temporalio/proto` is only a dependency of `@temporalio/common`,
 * not of this package, so it cannot be imported here. JSON plaintext starts with `{`, a protobuf one
 * with a field tag, so a later switch can still read today's payloads.
 */
interface SealedPayload {
  metadata: Record<string, string>;
  data?: string;
}

interface CodecKey {
  id: string;
  key: KeyObject;
}

function deriveKey(appKey: Uint8Array): CodecKey {
  if (appKey.length !== 32) throw new ValueError('APP_KEY must be 32 bytes');
  const derived = Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), HKDF_INFO, 32));
  // A short, public name for the key, so a payload says which key sealed it (for rotation).
  const id = createHash('sha256').update(derived).digest('hex').slice(0, 8);
  return { id, key: createSecretKey(derived) };
}

function text(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

function readMetadata(payload: Payload, key: string): string | undefined {
  const raw = payload.metadata?.[key];
  return raw ? new TextDecoder().decode(raw) : undefined;
}

/** Payload bytes may arrive as a typed array of another realm (the workflow sandbox) or as plain arrays. */
function toBase64(bytes: Uint8Array | ArrayLike<number>): string {
  return ArrayBuffer.isView(bytes)
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
    : Buffer.from(Uint8Array.from(bytes)).toString('base64');
}

function fromBase64(value: string): Uint8Array {
  return new Uint8Array(Buffer.from(value, 'base64'));
}

function seal(payload: Payload, { id, key }: CodecKey): Payload {
  const sealed: SealedPayload = {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, toBase64(value)]),
    ),
  };
  if (payload.data != null) sealed.data = toBase64(payload.data);

  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(sealed), 'utf8'), cipher.final()]);
  const encrypted: Payload = {
    metadata: { encoding: text(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text(id) },
    data: new Uint8Array(Buffer.concat([iv, ciphertext, cipher.getAuthTag()])),
  };
  // External-storage details only hold sizes; the SDK reads them next to the payload, so they stay outside.
  if (payload.externalPayloads?.length) encrypted.externalPayloads = payload.externalPayloads;
  return encrypted;
}

function open(payload: Payload, ring: readonly CodecKey[]): Payload {
  const keyId = readMetadata(payload, KEY_ID_METADATA);
  const key = ring.find((candidate) => candidate.id === keyId)?.key;
  if (!key) {
    const held = ring.map((candidate) => candidate.id).join(', ');
    throw new ValueError(
      `payload was encrypted with key '${keyId ?? 'none'}', this codec holds APP_KEY and APP_KEYS_PREVIOUS keys '${held}'`,
    );
  }
  const data = payload.data ?? new Uint8Array();
  if (data.length < IV_BYTES + TAG_BYTES) throw new ValueError('encrypted payload is too short');
  const iv = data.subarray(0, IV_BYTES);
  const tag = data.subarray(data.length - TAG_BYTES);
  const decipher = createDecipheriv(CIPHER, key, iv);
  decipher.setAuthTag(tag);
  let plaintext: string;
  try {
    plaintext = Buffer.concat([
      decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    // GCM does not say whether the key or the bytes were wrong; both mean the payload is not ours as stored.
    throw new ValueError('encrypted payload failed authentication (tampered or sealed with another key)');
  }

  const sealed = JSON.parse(plaintext) as SealedPayload;
  const decoded: Payload = {
    metadata: Object.fromEntries(
      Object.entries(sealed.metadata).map(([name, value]) => [name, fromBase64(value)]),
    ),
  };
  if (sealed.data !== undefined) decoded.data = fromBase64(sealed.data);
  if (payload.externalPayloads?.length) decoded.externalPayloads = payload.externalPayloads;
  return decoded;
}

/**
 * AES-256-GCM PayloadCodec, so trigger payloads, phone numbers and step outputs never sit in clear
 * in Temporal's history. The key is derived from APP_KEY with HKDF-SHA256 (info
 * `weft/temporal-payload-codec`); every payload gets a random 12-byte IV and carries
 * `encoding: binary/encrypted` and the key's id (the first 8 hex characters of the SHA-256 of the
 * derived key). Its data is IV, ciphertext, then the 16-byte tag.
 * A key ring (docs/key-custody.md): encoding uses APP_KEY; decoding takes the key of the ring
 * (APP_KEY, then APP_KEYS_PREVIOUS) whose id the payload carries, so histories written before a
 * rotation stay readable while the old key is kept in APP_KEYS_PREVIOUS.
 * Decoding passes payloads that are not `binary/encrypted` through unchanged; a tampered payload
 * or one sealed with a key outside the ring throws.
 *
 * For the worker, the client and the API's codec endpoint; never for workflow code (node:crypto).
 *
 * @example
 * const codec = createEncryptionCodec(env.APP_KEY, env.APP_KEYS_PREVIOUS);
 * const client = new Client({ connection, dataConverter: { payloadCodecs: [codec] } });
 */
export function createEncryptionCodec(
  appKey: Uint8Array,
  previousKeys: readonly Uint8Array[] = [],
): PayloadCodec {
  const codecKey = deriveKey(appKey);
  const ring = [codecKey, ...previousKeys.map(deriveKey)];
  return {
    async encode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => seal(payload, codecKey));
    },
    async decode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) =>
        readMetadata(payload, 'encoding') === ENCRYPTED_ENCODING ? open(payload, ring) : payload,
      );
    },
  };
}
