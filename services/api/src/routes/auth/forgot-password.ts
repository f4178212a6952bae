import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  admitAuthRequest,
  checkCaptcha,
  ForgotPasswordInput,
  RESET_REQUESTED,
  requestPasswordReset,
} from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { Message, noCredentials, requestOrigin } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/forgot-password',
  tags: ['Sign-in'],
  summary: 'Ask for a password reset link (the same answer whether the address is known or not)',
  operationId: 'forgotPassword',
  security: noCredentials,
  request: { body: { content: { 'application/json': { schema: ForgotPasswordInput } }, required: true } },
  responses: {
    200: jsonContent(Message, 'Accepted'),
    422: jsonContent(ErrorEnvelope, 'Validation error (a failed captcha included)'),
    429: jsonContent(ErrorEnvelope, 'More than 5 requests a minute from this address; see Retry-After'),
  },
});

export function registerForgotPassword(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const accounts = c.get('accounts');
    const origin = requestOrigin(c);
    const input = c.req.valid('json');
    await admitAuthRequest(accounts.db, 'forgot-password', origin.ipAddress ?? 'unknown');
    await checkCaptcha(accounts.captcha, input.captcha_token, origin.ipAddress);
    await requestPasswordReset(accounts, input.email);
    return c.json({ message: RESET_REQUESTED }, 200);
  });
}
