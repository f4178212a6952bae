import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { revokeInvitation } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security, UuidParam } from '../../openapi-schemas';
import { Message } from '../auth/shared';

const route = createRoute({
  method: 'delete',
  path: '/invitations/{id}',
  tags: ['Users'],
  summary: 'Withdraw a pending invitation (its link stops working)',
  operationId: 'revokeInvitation',
  security,
  middleware: [requirePermission('users.manage')] as const,
  request: { params: UuidParam },
  responses: { 200: jsonContent(Message, 'Withdrawn'), ...errorResponses(404, 422) },
});

export function registerRevokeInvitation(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    await revokeInvitation(c.get('ctx'), c.req.valid('param').id);
    return c.json({ message: 'Invitation withdrawn.' }, 200);
  });
}
