import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listTemplates, storedText } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { TemplateCategory, TemplateSummary } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listTemplates',
  path: '/templates',
  tags: ['Templates'],
  summary: 'List the pre-built workflow templates',
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: {
    query: z.object({
      category: TemplateCategory.optional(),
      search: storedText(z.string().max(200))
        .optional()
        .openapi({ description: 'Matches name, description, tags or trigger type' }),
    }),
  },
  responses: {
    200: jsonContent(z.object({ data: z.array(TemplateSummary) }), 'Templates'),
    ...errorResponses(422),
  },
});

export function registerListTemplates(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, (c) => c.json({ data: listTemplates(c.req.valid('query')) }, 200));
}
