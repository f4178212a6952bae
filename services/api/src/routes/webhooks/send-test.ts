import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { sendTestDelivery } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security, UuidParam } from '../../openapi-schemas';

const route = createRoute({
  method: 'post',
  path: '/webhooks/{id}/test',
  tags: ['Webhooks'],
  summary: 'Send a signed `webhook.test` event to this webhook (it shows in the deliveries log)',
  operationId: 'sendWebhookTest',
  security,
  middleware: [requirePermission('webhooks.manage')] as const,
  request: { params: UuidParam },
  responses: {
    202: jsonContent(z.object({ id: z.string(), event: z.string(), created_at: z.string() }), 'Queued'),
    ...errorResponses(404, 422),
  },
});

export function registerSendWebhookTest(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) =>
    c.json(await sendTestDelivery(c.get('ctx'), c.get('engine'), c.req.valid('param').id), 202),
  );
}
