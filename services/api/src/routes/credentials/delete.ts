import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteCredential } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, security } from '../../openapi-schemas';

const route = createRoute({
  method: 'delete',
  operationId: 'deleteCredential',
  path: '/credentials/{id}',
  tags: ['Credentials'],
  summary: 'Delete a credential no workflow uses (409 names the workflows that still do)',
  security,
  middleware: [requirePermission('credentials.manage')] as const,
  request: { params: IdParam },
  responses: { 204: { description: 'Deleted' }, ...errorResponses(404, 409) },
});

export function registerDeleteCredential(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    await deleteCredential({ ctx: c.get('ctx'), input: { id: c.req.valid('param').id } });
    return c.body(null, 204);
  });
}
