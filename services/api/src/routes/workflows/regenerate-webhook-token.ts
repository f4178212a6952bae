import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { regenerateWebhookToken } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Workflow } from './schemas';

const route = createRoute({
  method: 'post',
  operationId: 'regenerateWorkflowWebhookToken',
  path: '/workflows/{id}/webhook-token/regenerate',
  tags: ['Workflows'],
  summary: 'New inbound hook URL for a webhook workflow; the old URL stops working at once',
  security,
  middleware: [requirePermission('workflows.update'), idempotent] as const,
  request: { params: IdParam, headers: IdempotencyHeader },
  responses: {
    200: jsonContent(Workflow, 'The workflow with its new webhook_url'),
    ...errorResponses(404, 409),
  },
});

export function registerRegenerateWebhookToken(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const workflow = await regenerateWebhookToken({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      siteUrl: c.get('siteUrl'),
    });
    return c.json(workflow, 200);
  });
}
