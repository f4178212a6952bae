import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { beginTwoFactorSetup } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const route = createRoute({
  method: 'post',
  path: '/me/two-factor/setup',
  tags: ['Account'],
  summary: 'Start turning on two-factor: a new TOTP secret and its otpauth URI (for the QR code)',
  operationId: 'beginTwoFactorSetup',
  security: sessionSecurity,
  responses: {
    200: jsonContent(
      z.object({ secret: z.string(), otpauth_uri: z.string() }).openapi('TwoFactorSetup'),
      'The secret',
    ),
    ...sessionErrors,
    409: jsonContent(ErrorEnvelope, 'Two-factor is already on'),
  },
});

export function registerBeginTwoFactor(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) =>
    c.json(await beginTwoFactorSetup(c.get('accounts'), signedInSession(c)), 200),
  );
}
