import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { installationOpen } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { jsonContent } from '../../openapi-schemas';
import { noCredentials } from './shared';

export const AuthConfig = z
  .object({
    installation_open: z
      .boolean()
      .openapi({ description: 'No user exists yet: the installation wizard is open.' }),
    registration_enabled: z.boolean(),
    captcha: z
      .object({ provider: z.enum(['hcaptcha', 'recaptcha']), site_key: z.string(), script_url: z.string() })
      .nullable(),
  })
  .openapi('AuthConfig');

const route = createRoute({
  method: 'get',
  path: '/auth/config',
  tags: ['Sign-in'],
  summary: 'What the sign-in pages need: wizard open, sign-up on, captcha provider and site key',
  operationId: 'getAuthConfig',
  security: noCredentials,
  responses: { 200: jsonContent(AuthConfig, 'Sign-in settings') },
});

export function registerAuthConfig(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const accounts = c.get('accounts');
    return c.json(
      {
        installation_open: await installationOpen(accounts.db),
        registration_enabled: accounts.registrationEnabled,
        captcha: accounts.captcha
          ? {
              provider: accounts.captcha.provider,
              site_key: accounts.captcha.siteKey,
              script_url: accounts.captcha.scriptUrl ?? '',
            }
          : null,
      },
      200,
    );
  });
}
