import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  AppError,
  admitAuthRequest,
  authenticateSession,
  completeSecondFactor,
  SecondFactorInput,
} from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { assertCsrfToken, sessionToken } from '../../auth/web-session';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { sessionSecurity } from '../me/shared';
import { answerSession, requestOrigin, SignedIn } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/login/two-factor',
  tags: ['Sign-in'],
  summary: 'Finish signing in with a TOTP code or a recovery code (a new session id is issued)',
  operationId: 'loginTwoFactor',
  // The half-signed-in session of the password step (its cookie and CSRF token).
  security: sessionSecurity,
  request: { body: { content: { 'application/json': { schema: SecondFactorInput } }, required: true } },
  responses: {
    200: jsonContent(SignedIn, 'Signed in'),
    401: jsonContent(ErrorEnvelope, 'No password step in progress (or it expired)'),
    403: jsonContent(ErrorEnvelope, 'Missing or wrong CSRF token'),
    422: jsonContent(ErrorEnvelope, 'The code is not valid'),
    429: jsonContent(ErrorEnvelope, 'Too many attempts; see Retry-After'),
  },
});

export function registerLoginTwoFactor(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const accounts = c.get('accounts');
    const origin = requestOrigin(c);
    await admitAuthRequest(accounts.db, 'two-factor', origin.ipAddress ?? 'unknown');
    const token = sessionToken(c);
    const pending = token
      ? await authenticateSession(accounts.db, token, accounts.sessions.idleMinutes)
      : null;
    if (!pending?.awaitingSecondFactor) {
      throw new AppError('unauthenticated', 'Enter your e-mail and password first.');
    }
    assertCsrfToken(c, c.get('appKey'), pending.sessionId);
    const { session } = await completeSecondFactor(accounts, pending, c.req.valid('json'), origin);
    return answerSession(c, session, false, 200);
  });
}
