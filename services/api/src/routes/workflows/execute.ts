import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { executeWorkflow } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, IdParam, jsonContent, security } from '../../openapi-schemas';

const route = createRoute({
  method: 'post',
  operationId: 'executeWorkflow',
  path: '/workflows/{id}/execute',
  tags: ['Workflows'],
  summary: 'Run a workflow now; `input` becomes the execution trigger payload',
  security,
  middleware: [requirePermission('workflows.execute'), idempotent] as const,
  request: {
    params: IdParam,
    headers: IdempotencyHeader,
    body: {
      content: {
        'application/json': { schema: z.object({ input: z.record(z.string(), z.unknown()).optional() }) },
      },
      required: false,
    },
  },
  responses: {
    202: jsonContent(
      z.object({
        execution_id: z.string(),
        workflow_id: z.string(),
        status: z.string(),
        started_at: z.string(),
      }),
      'Accepted',
    ),
    ...errorResponses(404, 422),
  },
});

export function registerExecuteWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const result = await executeWorkflow({
      ctx: c.get('ctx'),
      input: {
        workflowId: c.req.valid('param').id,
        payload: body?.input ?? {},
        // Started by a person in the app (a session), or by a program with an API key.
        trigger: c.get('ctx').actor.apiKeyId ? 'api' : 'manual',
      },
      engine: c.get('engine'),
    });
    return c.json(result, 202);
  });
}
