import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { removeMember } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security, UuidParam } from '../../openapi-schemas';
import { Message } from '../auth/shared';

const route = createRoute({
  method: 'delete',
  path: '/users/{id}',
  tags: ['Users'],
  summary: 'Remove a member from the organization (their account stays)',
  operationId: 'removeUser',
  security,
  middleware: [requirePermission('users.manage')] as const,
  request: { params: UuidParam },
  responses: { 200: jsonContent(Message, 'Removed'), ...errorResponses(404, 409, 422) },
});

export function registerRemoveUser(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    await removeMember(c.get('ctx'), c.req.valid('param').id, c.get('auth').permissions);
    return c.json({ message: 'Removed from the organization.' }, 200);
  });
}
