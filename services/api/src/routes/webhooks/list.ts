import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listWebhooks, pageQuery, paginate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';
import { Webhook } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listWebhooks',
  path: '/webhooks',
  tags: ['Webhooks'],
  summary: "List the organization's outbound webhooks",
  security,
  middleware: [requirePermission('webhooks.view')] as const,
  request: { query: z.object(pageQuery(15, 100)) },
  responses: { 200: jsonContent(paginated(Webhook, 'WebhookList'), 'Webhooks'), ...errorResponses(422) },
});

export function registerListWebhooks(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const page = { page: query.page, perPage: query.per_page };
    const { rows, total } = await listWebhooks({ ctx: c.get('ctx'), input: page });
    return c.json(paginate(rows, total, page, '/api/v1/webhooks', {}), 200);
  });
}
