import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getWebhook } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Webhook } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getWebhook',
  path: '/webhooks/{id}',
  tags: ['Webhooks'],
  summary: 'Get an outbound webhook (never its secret)',
  security,
  middleware: [requirePermission('webhooks.view')] as const,
  request: { params: IdParam },
  responses: { 200: jsonContent(Webhook, 'The webhook'), ...errorResponses(404) },
});

export function registerGetWebhook(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const webhook = await getWebhook({ ctx: c.get('ctx'), input: { id: c.req.valid('param').id } });
    return c.json(webhook, 200);
  });
}
