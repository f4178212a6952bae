import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt';
import { z } from 'zod';

/** Minimum 8 (spec); long passphrases welcome; at most 256 so hashing cannot be used to burn CPU. */
export const Password = z
  .string()
  .min(8, 'The password must be at least 8 characters.')
  .max(256, 'The password must be at most 256 characters.');

export interface PasswordHasher {
  kind: 'argon2id' | 'bcrypt';
  bcryptRounds: number;
}

export const DEFAULT_HASHER: PasswordHasher = { kind: 'argon2id', bcryptRounds: 12 };

export function hashPassword(password: string, hasher: PasswordHasher = DEFAULT_HASHER): Promise<string> {
  // argon2id with the library's OWASP-level defaults; bcrypt when PASSWORD_HASHER=bcrypt.
  return hasher.kind === 'bcrypt' ? bcryptHash(password, hasher.bcryptRounds) : argon2Hash(password);
}

/** Either kind verifies, whichever is configured now: switching hashers never locks anyone out. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return stored.startsWith('$2')
      ? await bcryptVerify(password, stored)
      : await argon2Verify(stored, password);
  } catch {
    return false;
  }
}

const dummyHashes = new Map<string, Promise<string>>();

/**
 * Spends the time a real verification takes, for an e-mail that has no user, so a failed sign-in
 * takes about as long whether the address exists or not. The dummy hash is of the configured kind
 * (most stored hashes are).
 */
export async function verifyAgainstNothing(
  password: string,
  hasher: PasswordHasher = DEFAULT_HASHER,
): Promise<false> {
  const key = `${hasher.kind}:${hasher.bcryptRounds}`;
  let dummy = dummyHashes.get(key);
  if (!dummy) {
    dummy = hashPassword('weft-timing-equaliser', hasher);
    dummyHashes.set(key, dummy);
  }
  await verifyPassword(await dummy, password);
  return false;
}
