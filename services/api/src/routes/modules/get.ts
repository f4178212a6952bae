import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getModule } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { ModuleParam, ModuleResource, moduleOf } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getModule',
  path: '/modules/{name}',
  tags: ['Modules'],
  summary: "The organization's configuration of a module (chat, email, ai), secrets masked",
  security,
  middleware: [requirePermission('modules.view')] as const,
  request: { params: ModuleParam },
  responses: { 200: jsonContent(ModuleResource, 'The module'), ...errorResponses(404) },
});

export function registerGetModule(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const module = await getModule({
      ctx: c.get('ctx'),
      input: { module: moduleOf(c.req.valid('param').name) },
    });
    return c.json(module, 200);
  });
}
