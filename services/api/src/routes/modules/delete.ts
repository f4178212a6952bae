import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteModule } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, security } from '../../openapi-schemas';
import { ModuleParam, moduleOf } from './schemas';

const route = createRoute({
  method: 'delete',
  operationId: 'deleteModule',
  path: '/modules/{name}',
  tags: ['Modules'],
  summary: "Remove a module's configuration (its nodes then fail with module_not_configured)",
  security,
  middleware: [requirePermission('modules.manage')] as const,
  request: { params: ModuleParam },
  responses: { 204: { description: 'Removed' }, ...errorResponses(404) },
});

export function registerDeleteModule(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    await deleteModule({ ctx: c.get('ctx'), input: { module: moduleOf(c.req.valid('param').name) } });
    return c.body(null, 204);
  });
}
