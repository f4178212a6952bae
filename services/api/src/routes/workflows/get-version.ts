import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { getWorkflowVersion } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { WorkflowVersionSummary } from './list-versions';

const WorkflowVersion = WorkflowVersionSummary.extend({
  workflow_id: z.string(),
  definition: z.record(z.string(), z.unknown()).openapi({
    description: 'name, description, trigger_type, trigger_config (secrets masked), status, nodes, edges',
  }),
}).openapi('WorkflowVersion');

const route = createRoute({
  method: 'get',
  path: '/workflows/{id}/versions/{n}',
  tags: ['Workflows'],
  summary: 'One saved version of a workflow, whole (secrets masked)',
  operationId: 'getWorkflowVersion',
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: {
    params: z.object({
      id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }),
      n: z.coerce
        .number()
        .int()
        .min(1)
        .max(2_147_483_647)
        .openapi({ param: { name: 'n', in: 'path' } }),
    }),
  },
  responses: { 200: jsonContent(WorkflowVersion, 'The version'), ...errorResponses(404, 422) },
});

export function registerGetWorkflowVersion(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { id, n } = c.req.valid('param');
    return c.json(await getWorkflowVersion(c.get('ctx'), id, n), 200);
  });
}
