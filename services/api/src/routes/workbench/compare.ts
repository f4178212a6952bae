import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { compareExecutions, STEP_CHANGES } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

const ComparedNode = z
  .object({
    node_id: z.string(),
    iteration: z.number().int().nullable(),
    node_type: z.string(),
    change: z.enum(STEP_CHANGES),
    before: z.unknown().openapi({ description: "The step's output in the first execution (null: none)" }),
    after: z.unknown().openapi({ description: "The step's output in the second execution (null: none)" }),
    before_status: z.string().nullable(),
    after_status: z.string().nullable(),
  })
  .openapi('ComparedNode');

const Comparison = z
  .object({
    before_execution_id: z.string(),
    after_execution_id: z.string(),
    before_version: z.number().int(),
    after_version: z.number().int(),
    nodes: z.array(ComparedNode),
  })
  .openapi('ExecutionComparison');

const route = createRoute({
  method: 'get',
  operationId: 'compareExecutions',
  path: '/executions/{id}/compare/{other_id}',
  tags: ['Executions'],
  summary: 'Compare two runs of one workflow node by node: same, changed, added, removed',
  description:
    '`id` is before, `other_id` after (e.g. an execution and its replay). `added`/`removed`: the node ' +
    'is only in the after/before graph. 422 when the two are runs of different workflows.',
  security,
  middleware: [requirePermission('executions.view')] as const,
  request: {
    params: z.object({
      id: z.string().openapi({ param: { name: 'id', in: 'path' } }),
      other_id: z.string().openapi({ param: { name: 'other_id', in: 'path' } }),
    }),
  },
  responses: { 200: jsonContent(Comparison, 'The comparison'), ...errorResponses(404, 422) },
});

export function registerCompareExecutions(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { id, other_id } = c.req.valid('param');
    const result = await compareExecutions({ ctx: c.get('ctx'), input: { id, otherId: other_id } });
    return c.json(result, 200);
  });
}
