import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { csrfTokenFor, userMemberships } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { jsonContent } from '../../openapi-schemas';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const Role = z.enum(['admin', 'editor', 'viewer']);

export const Me = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    two_factor_enabled: z.boolean(),
    organization: z.object({ id: z.string(), name: z.string(), role: Role }).nullable(),
    organizations: z.array(z.object({ id: z.string(), name: z.string(), role: Role })),
    permissions: z.array(z.string()),
    csrf_token: z.string(),
  })
  .openapi('Me');

const route = createRoute({
  method: 'get',
  path: '/me',
  tags: ['Account'],
  summary: 'The signed-in user, their organizations and role, and the CSRF token of this session',
  operationId: 'getMe',
  security: sessionSecurity,
  responses: { 200: jsonContent(Me, 'The signed-in user'), ...sessionErrors },
});

export function registerGetMe(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const session = signedInSession(c);
    const organizations = (await userMemberships(c.get('accounts').db, session.userId)).map((m) => ({
      id: m.organization_id,
      name: m.name,
      role: m.role,
    }));
    const appKey = c.get('appKey');
    return c.json(
      {
        id: session.userId,
        email: session.email,
        name: session.name,
        two_factor_enabled: session.twoFactorEnabled,
        organization: organizations.find((o) => o.id === session.organizationId) ?? null,
        organizations,
        permissions: c.get('auth').permissions,
        csrf_token: appKey ? csrfTokenFor(appKey, session.sessionId) : '',
      },
      200,
    );
  });
}
