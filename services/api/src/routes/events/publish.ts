import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { PublishEventInput, publishEvent } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, jsonContent, security } from '../../openapi-schemas';

const Accepted = z
  .object({
    message: z.string(),
    event: z.string(),
    workflows_triggered: z.number().int(),
    execution_ids: z.array(z.string()),
  })
  .openapi('EventAccepted');

const route = createRoute({
  method: 'post',
  operationId: 'publishEvent',
  path: '/events',
  tags: ['Events'],
  summary: 'Publish an event: every active workflow listening for it starts',
  security,
  middleware: [requirePermission('events.publish'), idempotent] as const,
  request: {
    headers: IdempotencyHeader,
    body: { content: { 'application/json': { schema: PublishEventInput } }, required: true },
  },
  responses: { 202: jsonContent(Accepted, 'Accepted; the executions are queued'), ...errorResponses(422) },
});

export function registerPublishEvent(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const result = await publishEvent({
      ctx: c.get('ctx'),
      input: c.req.valid('json'),
      engine: c.get('engine'),
    });
    return c.json(result, 202);
  });
}
