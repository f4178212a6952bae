import { AppError, type WebSession } from '@weft/domain';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';

/** Account routes are for people signed in through the browser; an API key has no account. */
export function signedInSession(c: Context<AppEnv>): WebSession {
  const session = c.get('session');
  if (!session) throw new AppError('forbidden', 'This route is for signed-in users, not API keys.');
  return session;
}

export const sessionSecurity: Record<string, string[]>[] = [{ Session: [] }];

export const sessionErrors = {
  401: jsonContent(ErrorEnvelope, 'Not signed in, or the session ended'),
  403: jsonContent(ErrorEnvelope, 'Missing or wrong CSRF token, or called with an API key'),
  429: jsonContent(ErrorEnvelope, 'Too many requests; see Retry-After'),
};
