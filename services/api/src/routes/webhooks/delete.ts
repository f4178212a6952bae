import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteWebhook } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, security } from '../../openapi-schemas';

const route = createRoute({
  method: 'delete',
  operationId: 'deleteWebhook',
  path: '/webhooks/{id}',
  tags: ['Webhooks'],
  summary: 'Delete an outbound webhook and its delivery records',
  security,
  middleware: [requirePermission('webhooks.manage')] as const,
  request: { params: IdParam },
  responses: { 204: { description: 'Deleted' }, ...errorResponses(404) },
});

export function registerDeleteWebhook(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    await deleteWebhook({ ctx: c.get('ctx'), input: { id: c.req.valid('param').id } });
    return c.body(null, 204);
  });
}
