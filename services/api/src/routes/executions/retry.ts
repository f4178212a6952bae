import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { retryExecution } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, IdParam, jsonContent, security } from '../../openapi-schemas';

const route = createRoute({
  method: 'post',
  operationId: 'retryExecution',
  path: '/executions/{id}/retry',
  tags: ['Executions'],
  summary: 'Resume a failed execution in place at its failed node (409 unless failed)',
  description: 'Production executions only: a test run or replay (`mode: test`) answers 409; run it again.',
  security,
  middleware: [requirePermission('executions.retry'), idempotent] as const,
  request: { params: IdParam, headers: IdempotencyHeader },
  responses: {
    202: jsonContent(z.object({ id: z.string(), status: z.string(), attempt: z.number().int() }), 'Resumed'),
    ...errorResponses(404, 409),
  },
});

export function registerRetryExecution(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const result = await retryExecution({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      engine: c.get('engine'),
    });
    return c.json(result, 202);
  });
}
