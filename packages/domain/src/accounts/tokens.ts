import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Only this is stored: a leaked table gives no usable token. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * The CSRF token of a session: an HMAC of the session id under a key derived from APP_KEY, so it needs
 * no storage, differs per session and changes when the session id is rotated.
 */
export function csrfTokenFor(appKey: Uint8Array, sessionId: string): string {
  const key = createHmac('sha256', appKey).update('weft/csrf/v1').digest();
  return createHmac('sha256', key).update(sessionId).digest('base64url');
}

export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `presented` is the CSRF token of the session (constant time; no APP_KEY, no match). */
export function csrfTokenMatches(
  appKey: Uint8Array | undefined,
  sessionId: string,
  presented: string | undefined,
) {
  return appKey !== undefined && sameToken(presented ?? '', csrfTokenFor(appKey, sessionId));
}
