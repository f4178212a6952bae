import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { auditAccountEvent, endUserSessions } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { clearSessionCookie } from '../../auth/web-session';
import { jsonContent } from '../../openapi-schemas';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const route = createRoute({
  method: 'post',
  path: '/me/sessions/end-all',
  tags: ['Account'],
  summary: 'Sign out everywhere, this browser included',
  operationId: 'endAllMySessions',
  security: sessionSecurity,
  responses: { 200: jsonContent(z.object({ ended: z.number().int() }), 'Ended'), ...sessionErrors },
});

export function registerEndAllSessions(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const session = signedInSession(c);
    const accounts = c.get('accounts');
    const ended = await endUserSessions(accounts.db, session.userId);
    clearSessionCookie(c, accounts.siteUrl);
    if (session.organizationId) {
      await auditAccountEvent(accounts.db, [session.organizationId], {
        userId: session.userId,
        origin: { ipAddress: c.get('ctx').actor.ipAddress },
        action: 'sessions_ended',
        newValues: { ended },
      });
    }
    return c.json({ ended }, 200);
  });
}
