import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { AppError, setSessionOrganization, userMemberships } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { Message } from '../auth/shared';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const route = createRoute({
  method: 'post',
  path: '/me/organization',
  tags: ['Account'],
  summary: 'Switch the organization this session works in',
  operationId: 'switchOrganization',
  security: sessionSecurity,
  request: {
    body: {
      content: { 'application/json': { schema: z.object({ organization_id: z.string().max(64) }) } },
      required: true,
    },
  },
  responses: {
    200: jsonContent(Message, 'Switched'),
    ...sessionErrors,
    404: jsonContent(ErrorEnvelope, 'Not one of your organizations'),
  },
});

export function registerSwitchOrganization(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const session = signedInSession(c);
    const { organization_id } = c.req.valid('json');
    const db = c.get('accounts').db;
    const memberships = await userMemberships(db, session.userId);
    const target = memberships.find((m) => m.organization_id === organization_id);
    if (!target) {
      // Like any other organization's record: 404, whether it exists or not (tenancy, not input).
      throw new AppError('not_found', 'You are not a member of that organization.', {
        organization_id: ['not one of your organizations'],
      });
    }
    await setSessionOrganization(db, session.sessionId, organization_id);
    return c.json({ message: `Now working in ${target.name}.` }, 200);
  });
}
