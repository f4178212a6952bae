import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteExecution } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, security } from '../../openapi-schemas';

const route = createRoute({
  method: 'delete',
  operationId: 'deleteExecution',
  path: '/executions/{id}',
  tags: ['Executions'],
  summary: 'Delete an ended execution with its steps (409 while it runs, waits or awaits a retry)',
  security,
  middleware: [requirePermission('executions.delete')] as const,
  request: { params: IdParam },
  responses: {
    204: { description: 'Deleted' },
    ...errorResponses(404, 409),
  },
});

export function registerDeleteExecution(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    await deleteExecution({ ctx: c.get('ctx'), input: { id: c.req.valid('param').id } });
    return c.body(null, 204);
  });
}
