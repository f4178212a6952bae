import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { auditAccountEvent, endSession } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { clearSessionCookie } from '../../auth/web-session';
import { jsonContent } from '../../openapi-schemas';
import { sessionErrors, sessionSecurity, signedInSession } from '../me/shared';
import { Message } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/logout',
  tags: ['Sign-in'],
  summary: 'Sign out: the session ends on the server',
  operationId: 'logout',
  security: sessionSecurity,
  responses: { 200: jsonContent(Message, 'Signed out'), ...sessionErrors },
});

export function registerLogout(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const session = signedInSession(c);
    const accounts = c.get('accounts');
    await endSession(accounts.db, session.sessionId);
    clearSessionCookie(c, accounts.siteUrl);
    if (session.organizationId) {
      await auditAccountEvent(accounts.db, [session.organizationId], {
        userId: session.userId,
        origin: { ipAddress: c.get('ctx').actor.ipAddress },
        action: 'logout',
      });
    }
    return c.json({ message: 'Signed out.' }, 200);
  });
}
