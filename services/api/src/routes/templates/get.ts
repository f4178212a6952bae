import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getTemplate, presentTemplate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { Template, TemplateIdParam } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getTemplate',
  path: '/templates/{id}',
  tags: ['Templates'],
  summary: 'Get a template with its complete workflow',
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: { params: TemplateIdParam },
  responses: { 200: jsonContent(Template, 'The template'), ...errorResponses(404) },
});

export function registerGetTemplate(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, (c) => c.json(presentTemplate(getTemplate(c.req.valid('param').id)) as never, 200));
}
