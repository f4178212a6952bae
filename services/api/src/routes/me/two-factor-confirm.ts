import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { admitAuthRequest, confirmTwoFactor, TotpCodeInput } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const route = createRoute({
  method: 'post',
  path: '/me/two-factor/confirm',
  tags: ['Account'],
  summary: 'Finish turning on two-factor with a code; answers the 8 recovery codes, once',
  operationId: 'confirmTwoFactor',
  security: sessionSecurity,
  request: { body: { content: { 'application/json': { schema: TotpCodeInput } }, required: true } },
  responses: {
    200: jsonContent(z.object({ recovery_codes: z.array(z.string()) }).openapi('RecoveryCodes'), 'On'),
    ...sessionErrors,
    409: jsonContent(ErrorEnvelope, 'Already on, or no set-up started'),
    422: jsonContent(ErrorEnvelope, 'The code is not valid'),
  },
});

export function registerConfirmTwoFactor(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    // Guessing codes or passwords from a stolen session is held to 5 a minute per user.
    await admitAuthRequest(c.get('accounts').db, 'two-factor-confirm', signedInSession(c).userId);
    const result = await confirmTwoFactor(c.get('accounts'), signedInSession(c), c.req.valid('json').code, {
      ipAddress: c.get('ctx').actor.ipAddress,
    });
    return c.json(result, 200);
  });
}
