import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Secrets Weft must read back (webhook signing secrets, module credentials, TOTP secrets), encrypted
 * at rest (DESIGN §10): AES-256-CBC with a random IV, then an HMAC-SHA256 over everything before it
 * (encrypt-then-MAC), so a tampered or foreign value is refused before any decryption happens.
 * Both keys are derived from APP_KEY with HKDF, one per purpose, so APP_KEY itself never keys a cipher.
 *
 * A key ring (docs/key-custody.md): APP_KEY seals, APP_KEY and APP_KEYS_PREVIOUS open.
 * Stored forms, each part base64url except the key id:
 * - `v2.<key id>.<iv>.<ciphertext>.<mac>`: written now; the key id (8 hex characters, public) names
 *   the APP_KEY that sealed it, so opening takes that key at once and rotation sees what is current.
 * - `v1.<iv>.<ciphertext>.<mac>`: written before the ring; opened by trying each key of the ring.
 */
export interface SecretBox {
  encrypt(plaintext: string): string;
  /** Throws `SecretBoxError` when the value was altered, made with a key not in the ring, or is malformed. */
  decrypt(stored: string): string;
}

/** The ring's box, with what `weft keys rotate` and the start-up check need besides encrypt/decrypt. */
export interface KeyRingBox extends SecretBox {
  /** Key id of APP_KEY, the key that seals. */
  readonly currentKeyId: string;
  /** Whether `stored` is sealed by APP_KEY in the current format (rotation leaves it as it is). */
  isCurrent(stored: string): boolean;
}

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
  constructor(
    message: string,
    /** No key of this ring opens it (sealed elsewhere, or before a key left the ring): an operator's fix, not the caller's. */
    readonly keyNotHeld = false,
  ) {
    super(message);
  }
}

const IV_BYTES = 16;
const MAC_BYTES = 32;

function deriveKey(appKey: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), info, 32));
}

/** The public name of an APP_KEY: 8 hex characters of a hash of a key derived for naming only. */
export function appKeyId(appKey: Uint8Array): string {
  return createHash('sha256').update(deriveKey(appKey, 'weft secret-box key id')).digest('hex').slice(0, 8);
}

interface RingKey {
  id: string;
  encryptionKey: Buffer;
  /** The MAC over the version, (v2) key id, IV and ciphertext. */
  mac(version: string, keyId: string, iv: Buffer, ciphertext: Buffer): Buffer;
}

function ringKey(appKey: Uint8Array): RingKey {
  if (appKey.byteLength < 32) throw new RangeError('APP_KEY must be at least 32 bytes');
  // The same derivations as v1, so values sealed before the ring keep opening.
  const encryptionKey = deriveKey(appKey, 'weft secret-box v1 aes-256-cbc');
  const macKey = deriveKey(appKey, 'weft secret-box v1 hmac-sha256');
  return {
    id: appKeyId(appKey),
    encryptionKey,
    mac: (version, keyId, iv, ciphertext) => {
      const hmac = createHmac('sha256', macKey).update(version);
      if (version === 'v2') hmac.update(`.${keyId}.`);
      return hmac.update(iv).update(ciphertext).digest();
    },
  };
}

interface Parsed {
  version: 'v1' | 'v2';
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  given: Buffer;
}

function parse(stored: string): Parsed {
  const parts = stored.split('.');
  let version: Parsed['version'];
  let keyId = '';
  let rest: string[];
  if (parts[0] === 'v2' && parts.length === 5 && /^[0-9a-f]{8}$/.test(parts[1] ?? '')) {
    version = 'v2';
    keyId = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'v1' && parts.length === 4) {
    version = 'v1';
    rest = parts.slice(1);
  } else {
    throw new SecretBoxError('Not a secret box value (v1 or v2)');
  }
  const [iv, ciphertext, given] = rest.map((part) => Buffer.from(part, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
  ];
  if (iv.length !== IV_BYTES || given.length !== MAC_BYTES || ciphertext.length === 0) {
    throw new SecretBoxError('Malformed secret box value');
  }
  return { version, keyId, iv, ciphertext, given };
}

function openWith(key: RingKey, value: Parsed): string | undefined {
  // Verify before decrypting: CBC padding errors must never become an oracle.
  if (!timingSafeEqual(value.given, key.mac(value.version, value.keyId, value.iv, value.ciphertext))) {
    return undefined;
  }
  const decipher = createDecipheriv('aes-256-cbc', key.encryptionKey, value.iv);
  return Buffer.concat([decipher.update(value.ciphertext), decipher.final()]).toString('utf8');
}

/**
 * @example
 * const box = createSecretBox(env.APP_KEY, env.APP_KEYS_PREVIOUS);
 * const stored = box.encrypt('whsec_…'); // 'v2.<key id>.…'
 * box.decrypt(stored); // 'whsec_…'
 */
export function createSecretBox(appKey: Uint8Array, previousKeys: readonly Uint8Array[] = []): KeyRingBox {
  const current = ringKey(appKey);
  const ring = [current, ...previousKeys.map(ringKey).filter((key) => key.id !== current.id)];
  const ringIds = ring.map((key) => key.id).join(', ');

  return {
    currentKeyId: current.id,
    encrypt(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-cbc', current.encryptionKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const mac = current.mac('v2', current.id, iv, ciphertext);
      return ['v2', current.id, ...[iv, ciphertext, mac].map((part) => part.toString('base64url'))].join('.');
    },
    decrypt(stored) {
      const value = parse(stored);
      if (value.version === 'v2') {
        const key = ring.find((candidate) => candidate.id === value.keyId);
        if (!key) {
          throw new SecretBoxError(
            `Sealed with APP_KEY ${value.keyId}, which is neither APP_KEY nor in APP_KEYS_PREVIOUS (ring: ${ringIds})`,
            true,
          );
        }
        const opened = openWith(key, value);
        if (opened === undefined) throw new SecretBoxError('Secret box MAC mismatch: the value was altered');
        return opened;
      }
      for (const key of ring) {
        const opened = openWith(key, value);
        if (opened !== undefined) return opened;
      }
      throw new SecretBoxError(
        `Secret box MAC mismatch: altered, or sealed with an APP_KEY not in the ring (ring: ${ringIds})`,
        true,
      );
    },
    isCurrent(stored) {
      return stored.startsWith(`v2.${current.id}.`);
    },
  };
}
