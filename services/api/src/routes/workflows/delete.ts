import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteWorkflow } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, security } from '../../openapi-schemas';

const route = createRoute({
  method: 'delete',
  operationId: 'deleteWorkflow',
  path: '/workflows/{id}',
  tags: ['Workflows'],
  summary: 'Delete a workflow',
  security,
  middleware: [requirePermission('workflows.delete')] as const,
  request: { params: IdParam },
  responses: { 204: { description: 'Deleted' }, ...errorResponses(404) },
});

export function registerDeleteWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    await deleteWorkflow({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      engine: c.get('engine'),
    });
    return c.body(null, 204);
  });
}
