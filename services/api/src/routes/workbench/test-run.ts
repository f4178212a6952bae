import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { startTestRun } from '@weft/domain';
import { NodeId } from '@weft/graph';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, IdParam, jsonContent, security } from '../../openapi-schemas';
import { StartedExecution } from './schemas';

const TestRunBody = z
  .object({
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "The trigger payload; with start_at and without input, the source run's" }),
    start_at: NodeId.optional().openapi({
      description:
        'Run from this step: the steps upstream of it take their outputs from pins or the source run ' +
        '(one with neither fails `no_recording`, never runs); steps on other branches are skipped',
    }),
    stop_after: NodeId.optional().openapi({
      description: 'Stop after this step: later steps are not run (skipped, source `stopped`)',
    }),
    source_execution_id: z
      .uuid()
      .optional()
      .openapi({ description: "Where earlier steps' outputs come from; default: the workflow's last run" }),
  })
  .openapi('TestRunRequest');

const route = createRoute({
  method: 'post',
  operationId: 'testWorkflow',
  path: '/workflows/{id}/test',
  tags: ['Workflows'],
  summary: 'Test-run the saved graph: pins used; run from, up to, or only one step',
  description:
    'A `mode: test` execution (trigger `test`). Pinned outputs replace their steps. `start_at` = ' +
    '`stop_after` runs one step with the inputs of the last run or the pins. 422 names an unknown step.',
  security,
  middleware: [requirePermission('workflows.execute'), idempotent] as const,
  request: {
    params: IdParam,
    headers: IdempotencyHeader,
    body: { content: { 'application/json': { schema: TestRunBody } }, required: false },
  },
  responses: {
    202: jsonContent(StartedExecution, 'Accepted'),
    ...errorResponses(404, 422),
  },
});

export function registerTestWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const result = await startTestRun({
      ctx: c.get('ctx'),
      input: {
        workflowId: c.req.valid('param').id,
        payload: body?.input,
        startAt: body?.start_at,
        stopAfter: body?.stop_after,
        sourceExecutionId: body?.source_execution_id,
      },
      engine: c.get('engine'),
    });
    return c.json(result, 202);
  });
}
