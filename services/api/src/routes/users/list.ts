import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listMembers } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

export const Member = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: z.enum(['admin', 'editor', 'viewer']),
    two_factor_enabled: z.boolean(),
    joined_at: z.string(),
  })
  .openapi('Member');

const route = createRoute({
  method: 'get',
  path: '/users',
  tags: ['Users'],
  summary: "The organization's members and their roles",
  operationId: 'listUsers',
  security,
  middleware: [requirePermission('users.view')] as const,
  responses: { 200: jsonContent(z.object({ data: z.array(Member) }), 'Members'), ...errorResponses() },
});

export function registerListUsers(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => c.json({ data: await listMembers(c.get('ctx')) }, 200));
}
