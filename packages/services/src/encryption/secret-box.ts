import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Secrets Weft must read back (webhook signing secrets, module credentials), encrypted at rest
 * (DESIGN §10): AES-256-CBC with a random IV, then an HMAC-SHA256 over version, IV and ciphertext
 * (encrypt-then-MAC), so a tampered or foreign value is refused before any decryption happens.
 * Both keys are derived from APP_KEY with HKDF, one per purpose, so APP_KEY itself never keys a cipher.
 *
 * Stored form: `v1.<iv>.<ciphertext>.<mac>`, each part base64url.
 */
export interface SecretBox {
  encrypt(plaintext: string): string;
  /** Throws `SecretBoxError` when the value was altered, made with another key, or is malformed. */
  decrypt(stored: string): string;
}

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

const VERSION = 'v1';
const IV_BYTES = 16;
const MAC_BYTES = 32;

function deriveKey(appKey: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), info, 32));
}

/**
 * @example
 * const box = createSecretBox(env.APP_KEY);
 * const stored = box.encrypt('whsec_…'); // 'v1.…'
 * box.decrypt(stored); // 'whsec_…'
 */
export function createSecretBox(appKey: Uint8Array): SecretBox {
  if (appKey.byteLength < 32) throw new RangeError('APP_KEY must be at least 32 bytes');
  const encryptionKey = deriveKey(appKey, 'weft secret-box v1 aes-256-cbc');
  const macKey = deriveKey(appKey, 'weft secret-box v1 hmac-sha256');
  const mac = (iv: Buffer, ciphertext: Buffer) =>
    createHmac('sha256', macKey).update(VERSION).update(iv).update(ciphertext).digest();

  return {
    encrypt(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-cbc', encryptionKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, ciphertext, mac(iv, ciphertext)]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    decrypt(stored) {
      const parts = stored.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretBoxError('Not a v1 secret box value');
      const [iv, ciphertext, given] = parts.slice(1).map((part) => Buffer.from(part, 'base64url')) as [
        Buffer,
        Buffer,
        Buffer,
      ];
      if (iv.length !== IV_BYTES || given.length !== MAC_BYTES || ciphertext.length === 0) {
        throw new SecretBoxError('Malformed secret box value');
      }
      // Verify before decrypting: CBC padding errors must never become an oracle.
      if (!timingSafeEqual(given, mac(iv, ciphertext))) {
        throw new SecretBoxError('Secret box MAC mismatch: altered, or encrypted with another APP_KEY');
      }
      const decipher = createDecipheriv('aes-256-cbc', encryptionKey, iv);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    },
  };
}
