import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { admitAuthRequest, checkCaptcha, endSessionByToken, LoginInput, login } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { sessionToken } from '../../auth/web-session';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { answerSession, noCredentials, requestOrigin, SignedIn } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/login',
  tags: ['Sign-in'],
  summary: 'Sign in with e-mail and password (sets the session cookie)',
  operationId: 'login',
  security: noCredentials,
  request: { body: { content: { 'application/json': { schema: LoginInput } }, required: true } },
  responses: {
    200: jsonContent(SignedIn, 'Signed in, or a second factor is owed'),
    401: jsonContent(ErrorEnvelope, 'The e-mail or password is incorrect (one message for both)'),
    422: jsonContent(ErrorEnvelope, 'Validation error (a failed captcha included)'),
    429: jsonContent(ErrorEnvelope, 'More than 5 attempts a minute from this address; see Retry-After'),
  },
});

export function registerLogin(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const accounts = c.get('accounts');
    const origin = requestOrigin(c);
    const input = c.req.valid('json');
    await admitAuthRequest(accounts.db, 'login', origin.ipAddress ?? 'unknown');
    await checkCaptcha(accounts.captcha, input.captcha_token, origin.ipAddress);
    const { session, twoFactorRequired } = await login(accounts, input, origin);
    const previous = sessionToken(c);
    if (previous) await endSessionByToken(accounts.db, previous);
    return answerSession(c, session, twoFactorRequired, 200);
  });
}
