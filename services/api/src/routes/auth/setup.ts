import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { InstallInput, install } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { answerSession, noCredentials, requestOrigin, SignedIn } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/setup',
  tags: ['Sign-in'],
  summary: 'Installation wizard: the first organization and its admin (only while no user exists)',
  operationId: 'installWeft',
  security: noCredentials,
  request: { body: { content: { 'application/json': { schema: InstallInput } }, required: true } },
  responses: {
    201: jsonContent(SignedIn, 'Installed; the admin is signed in'),
    409: jsonContent(ErrorEnvelope, 'Already installed (nothing was created)'),
    422: jsonContent(ErrorEnvelope, 'Validation error'),
  },
});

/** Exempt from CSRF (no session exists yet, and none can: it is closed once a user exists). */
export function registerInstall(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { session } = await install(c.get('accounts'), c.req.valid('json'), requestOrigin(c));
    return answerSession(c, session, false, 201);
  });
}
