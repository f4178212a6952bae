import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listUserSessions } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { jsonContent } from '../../openapi-schemas';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

export const ActiveSession = z
  .object({
    id: z.string(),
    current: z.boolean(),
    ip_address: z.string().nullable(),
    user_agent: z.string().nullable(),
    created_at: z.string(),
    last_seen_at: z.string(),
    expires_at: z.string(),
  })
  .openapi('ActiveSession');

const route = createRoute({
  method: 'get',
  path: '/me/sessions',
  tags: ['Account'],
  summary: "The user's active sessions",
  operationId: 'listMySessions',
  security: sessionSecurity,
  responses: { 200: jsonContent(z.object({ data: z.array(ActiveSession) }), 'Sessions'), ...sessionErrors },
});

export function registerListSessions(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const session = signedInSession(c);
    return c.json(
      { data: await listUserSessions(c.get('accounts').db, session.userId, session.sessionId) },
      200,
    );
  });
}
