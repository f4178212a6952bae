import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 40; // 40 base62 characters ≈ 238 bits of entropy
const CHECKSUM_LENGTH = 6;
export const API_KEY_PREFIX = 'weft_';
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** Uniform base62 characters by rejection sampling (bytes >= 248 are dropped to avoid bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/**
 * `weft_<40 random base62><6 base62 CRC32>`: the prefix lets secret scanners find leaked keys and the
 * checksum lets the server refuse a mistyped or invented key without a database query.
 */
export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return `${API_KEY_PREFIX}${body}${base62(crc32(body), CHECKSUM_LENGTH)}`;
}

export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LENGTH);
  return key.endsWith(base62(crc32(body), CHECKSUM_LENGTH));
}

/** Keys carry more than 128 bits of entropy, so a fast hash is enough (no password hash needed). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function apiKeyHint(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}
