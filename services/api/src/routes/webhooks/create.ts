import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { createWebhook, WebhookInput } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, jsonContent, security } from '../../openapi-schemas';
import { CreatedWebhook, webhookDeps } from './schemas';

const route = createRoute({
  method: 'post',
  operationId: 'createWebhook',
  path: '/webhooks',
  tags: ['Webhooks'],
  summary: 'Create an outbound webhook (the response carries its signing secret, once)',
  security,
  middleware: [requirePermission('webhooks.manage'), idempotent] as const,
  request: {
    headers: IdempotencyHeader,
    body: { content: { 'application/json': { schema: WebhookInput } }, required: true },
  },
  responses: { 201: jsonContent(CreatedWebhook, 'The webhook, with its secret'), ...errorResponses(422) },
});

export function registerCreateWebhook(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const webhook = await createWebhook({
      ctx: c.get('ctx'),
      input: c.req.valid('json'),
      deps: webhookDeps(c),
    });
    return c.json(webhook, 201);
  });
}
