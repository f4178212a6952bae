import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { admitAuthRequest, ChangePasswordInput, changePassword } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const route = createRoute({
  method: 'post',
  path: '/me/password',
  tags: ['Account'],
  summary: "Change the password (needs the current one); the user's other sessions end",
  operationId: 'changePassword',
  security: sessionSecurity,
  request: { body: { content: { 'application/json': { schema: ChangePasswordInput } }, required: true } },
  responses: {
    200: jsonContent(z.object({ other_sessions_ended: z.number().int() }), 'Changed'),
    ...sessionErrors,
    422: jsonContent(ErrorEnvelope, 'Wrong current password or a too-short new one'),
  },
});

export function registerChangePassword(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    // Guessing codes or passwords from a stolen session is held to 5 a minute per user.
    await admitAuthRequest(c.get('accounts').db, 'password-change', signedInSession(c).userId);
    const result = await changePassword(c.get('accounts'), signedInSession(c), c.req.valid('json'), {
      ipAddress: c.get('ctx').actor.ipAddress,
    });
    return c.json(result, 200);
  });
}
