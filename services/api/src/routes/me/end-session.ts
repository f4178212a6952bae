import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { endOwnSession, notFound } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent, UuidParam } from '../../openapi-schemas';
import { Message } from '../auth/shared';
import { sessionErrors, sessionSecurity, signedInSession } from './shared';

const route = createRoute({
  method: 'delete',
  path: '/me/sessions/{id}',
  tags: ['Account'],
  summary: 'End one of your sessions (another browser, say)',
  operationId: 'endMySession',
  security: sessionSecurity,
  request: { params: UuidParam },
  responses: {
    200: jsonContent(Message, 'Ended'),
    ...sessionErrors,
    404: jsonContent(ErrorEnvelope, 'Not yours or gone'),
    422: jsonContent(ErrorEnvelope, 'The id is not a UUID'),
  },
});

export function registerEndSession(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const session = signedInSession(c);
    const { id } = c.req.valid('param');
    if (!(await endOwnSession(c.get('accounts').db, session.userId, id))) {
      throw notFound('Session');
    }
    return c.json({ message: 'Session ended.' }, 200);
  });
}
