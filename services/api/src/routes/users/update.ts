import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { UpdateMemberInput, updateMember } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security, UuidParam } from '../../openapi-schemas';

const route = createRoute({
  method: 'patch',
  path: '/users/{id}',
  tags: ['Users'],
  summary: "Change a member's role (the last admin stays admin)",
  operationId: 'updateUser',
  security,
  middleware: [requirePermission('users.manage')] as const,
  request: {
    params: UuidParam,
    body: { content: { 'application/json': { schema: UpdateMemberInput } }, required: true },
  },
  responses: {
    200: jsonContent(z.object({ id: z.string(), role: z.enum(['admin', 'editor', 'viewer']) }), 'Updated'),
    ...errorResponses(404, 409, 422),
  },
});

export function registerUpdateUser(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const input = c.req.valid('json');
    return c.json(
      await updateMember(c.get('ctx'), c.req.valid('param').id, input, c.get('auth').permissions),
      200,
    );
  });
}
