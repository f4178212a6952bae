import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { DELIVERY_STATUSES, listWebhookDeliveries, pageQuery, paginate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, paginated, security } from '../../openapi-schemas';
import { Delivery } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listWebhookDeliveries',
  path: '/webhooks/{id}/deliveries',
  tags: ['Webhooks'],
  summary: "A webhook's deliveries, newest first, with every attempt",
  security,
  middleware: [requirePermission('webhooks.view')] as const,
  request: {
    params: IdParam,
    query: z.object({ ...pageQuery(15, 100), status: z.enum(DELIVERY_STATUSES).optional() }),
  },
  responses: {
    200: jsonContent(paginated(Delivery, 'WebhookDeliveryList'), 'Deliveries'),
    ...errorResponses(404, 422),
  },
});

export function registerListWebhookDeliveries(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    const page = { page: query.page, perPage: query.per_page };
    const { rows, total } = await listWebhookDeliveries({
      ctx: c.get('ctx'),
      input: { ...page, webhookId: id, status: query.status },
    });
    const path = `/api/v1/webhooks/${encodeURIComponent(id)}/deliveries`;
    return c.json(paginate(rows, total, page, path, { status: query.status }), 200);
  });
}
