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
  summary: 'Retry a failed execution in place, or a partial one from its failed steps (409 otherwise)',
  description:
    'A failed execution resumes in place at its failed node (same id, `attempt` + 1). A partial one has ended, so its retry is a new execution (`id` is the new one, `retry_of` the original) that reuses the steps the original completed and runs its failed steps and everything after them again. Production executions only: a test run or replay (`mode: test`) answers 409; run it again.',
  security,
  middleware: [requirePermission('executions.retry'), idempotent] as const,
  request: { params: IdParam, headers: IdempotencyHeader },
  responses: {
    202: jsonContent(
      z.object({
        id: z.string(),
        status: z.string(),
        attempt: z.number().int(),
        retry_of: z
          .string()
          .optional()
          .openapi({ description: 'Set when a new execution retries a partial one' }),
      }),
      'Resumed, or a new execution started',
    ),
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
