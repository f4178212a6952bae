import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { admitAuthRequest, disableTwoFactor, TotpCodeInput } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { Message } from '../auth/shared';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const route = createRoute({
  method: 'post',
  path: '/me/two-factor/disable',
  tags: ['Account'],
  summary: 'Turn two-factor off (needs a current code or a recovery code)',
  operationId: 'disableTwoFactor',
  security: sessionSecurity,
  request: { body: { content: { 'application/json': { schema: TotpCodeInput } }, required: true } },
  responses: {
    200: jsonContent(Message, 'Off'),
    ...sessionErrors,
    409: jsonContent(ErrorEnvelope, 'Two-factor is off'),
    422: jsonContent(ErrorEnvelope, 'The code is not valid'),
  },
});

export function registerDisableTwoFactor(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    // Guessing codes or passwords from a stolen session is held to 5 a minute per user.
    await admitAuthRequest(c.get('accounts').db, 'two-factor-disable', signedInSession(c).userId);
    await disableTwoFactor(c.get('accounts'), signedInSession(c), c.req.valid('json').code, {
      ipAddress: c.get('ctx').actor.ipAddress,
    });
    return c.json({ message: 'Two-factor authentication is off.' }, 200);
  });
}
