import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { cancelExecution } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, IdParam, jsonContent, security } from '../../openapi-schemas';

const route = createRoute({
  method: 'post',
  operationId: 'cancelExecution',
  path: '/executions/{id}/cancel',
  tags: ['Executions'],
  summary: 'Cancel a pending, running, waiting or failed execution',
  security,
  middleware: [requirePermission('executions.cancel'), idempotent] as const,
  request: { params: IdParam, headers: IdempotencyHeader },
  responses: {
    200: jsonContent(z.object({ id: z.string(), status: z.string() }), 'Cancelled'),
    ...errorResponses(404, 409),
  },
});

export function registerCancelExecution(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const result = await cancelExecution({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      engine: c.get('engine'),
    });
    return c.json(result, 200);
  });
}
