import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { updateWebhook, WebhookInput } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Webhook, webhookDeps } from './schemas';

const route = createRoute({
  method: 'put',
  operationId: 'updateWebhook',
  path: '/webhooks/{id}',
  tags: ['Webhooks'],
  summary: 'Replace url and events of a webhook; the secret changes only when one is given',
  security,
  middleware: [requirePermission('webhooks.manage')] as const,
  request: {
    params: IdParam,
    body: { content: { 'application/json': { schema: WebhookInput } }, required: true },
  },
  responses: { 200: jsonContent(Webhook, 'The webhook'), ...errorResponses(404, 422) },
});

export function registerUpdateWebhook(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const webhook = await updateWebhook({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id, webhook: c.req.valid('json') },
      deps: webhookDeps(c),
    });
    return c.json(webhook, 200);
  });
}
