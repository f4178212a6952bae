import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { admitAuthRequest, checkCaptcha, RegisterInput, register } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { answerSession, noCredentials, requestOrigin, SignedIn } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/register',
  tags: ['Sign-in'],
  summary: 'Sign up (only when REGISTRATION_ENABLED): a new user with an organization of their own',
  operationId: 'register',
  security: noCredentials,
  request: { body: { content: { 'application/json': { schema: RegisterInput } }, required: true } },
  responses: {
    201: jsonContent(SignedIn, 'Signed up and signed in'),
    404: jsonContent(ErrorEnvelope, 'Sign-up is off'),
    409: jsonContent(ErrorEnvelope, 'The e-mail already has an account'),
    422: jsonContent(ErrorEnvelope, 'Validation error (a failed captcha included)'),
    429: jsonContent(ErrorEnvelope, 'More than 5 attempts a minute from this address; see Retry-After'),
  },
});

export function registerRegister(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const accounts = c.get('accounts');
    const origin = requestOrigin(c);
    const input = c.req.valid('json');
    await admitAuthRequest(accounts.db, 'register', origin.ipAddress ?? 'unknown');
    await checkCaptcha(accounts.captcha, input.captcha_token, origin.ipAddress);
    const session = await register(accounts, input, origin);
    return answerSession(c, session, false, 201);
  });
}
