import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { moduleFormSpecs } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { FormSpecList } from './schemas';

const specs = moduleFormSpecs();

const route = createRoute({
  method: 'get',
  path: '/module-types',
  tags: ['Modules'],
  summary:
    'The modules with the JSON Schema of their configuration (per provider for chat) and their secret fields',
  operationId: 'listModuleTypes',
  security,
  middleware: [requirePermission('modules.view')] as const,
  responses: { 200: jsonContent(FormSpecList, 'Modules'), ...errorResponses() },
});

export function registerListModuleTypes(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, (c) => c.json({ data: specs }, 200));
}
