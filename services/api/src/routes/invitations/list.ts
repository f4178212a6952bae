import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listInvitations } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

export const Invitation = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(['admin', 'editor', 'viewer']),
    expires_at: z.string(),
    created_at: z.string(),
  })
  .openapi('Invitation');

const route = createRoute({
  method: 'get',
  path: '/invitations',
  tags: ['Users'],
  summary: 'Pending invitations',
  operationId: 'listInvitations',
  security,
  middleware: [requirePermission('users.manage')] as const,
  responses: {
    200: jsonContent(z.object({ data: z.array(Invitation) }), 'Invitations'),
    ...errorResponses(),
  },
});

export function registerListInvitations(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => c.json({ data: await listInvitations(c.get('ctx')) }, 200));
}
