import { randomBytes } from 'node:crypto';

/** 32 random bytes, base64url (43 characters): hook URLs, session cookies, invitation and reset links. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}
