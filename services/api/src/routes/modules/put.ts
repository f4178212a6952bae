import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { putModule } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { ModuleConfigBody, ModuleParam, ModuleResource, moduleOf } from './schemas';

const route = createRoute({
  method: 'put',
  operationId: 'configureModule',
  path: '/modules/{name}',
  tags: ['Modules'],
  summary: 'Configure a module; secret fields are write-only and a left-out one keeps its stored value',
  security,
  middleware: [requirePermission('modules.manage')] as const,
  request: {
    params: ModuleParam,
    body: { content: { 'application/json': { schema: ModuleConfigBody } }, required: true },
  },
  responses: { 200: jsonContent(ModuleResource, 'The module, secrets masked'), ...errorResponses(404, 422) },
});

export function registerPutModule(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const module = await putModule({
      ctx: c.get('ctx'),
      input: { module: moduleOf(c.req.valid('param').name), config: c.req.valid('json') },
      deps: { secrets: c.get('secrets') },
    });
    return c.json(module, 200);
  });
}
