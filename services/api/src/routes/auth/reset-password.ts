import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { admitAuthRequest, ResetPasswordInput, resetPassword } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { Message, noCredentials, requestOrigin } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/reset-password',
  tags: ['Sign-in'],
  summary: 'Choose a new password with a reset link (single use, 60 minutes); every session ends',
  operationId: 'resetPassword',
  security: noCredentials,
  request: { body: { content: { 'application/json': { schema: ResetPasswordInput } }, required: true } },
  responses: {
    200: jsonContent(Message, 'Password changed'),
    422: jsonContent(ErrorEnvelope, 'Invalid, used or expired link, or a too-short password'),
    429: jsonContent(ErrorEnvelope, 'More than 5 requests a minute from this address; see Retry-After'),
  },
});

export function registerResetPassword(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const accounts = c.get('accounts');
    const origin = requestOrigin(c);
    await admitAuthRequest(accounts.db, 'reset-password', origin.ipAddress ?? 'unknown');
    await resetPassword(accounts, c.req.valid('json'), origin);
    return c.json({ message: 'Your password was changed; sign in with it.' }, 200);
  });
}
