import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listWorkflows, pageQuery, paginate, storedText, WorkflowStatus } from '@weft/domain';
import { TriggerType } from '@weft/graph';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';
import { WorkflowSummary } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listWorkflows',
  path: '/workflows',
  tags: ['Workflows'],
  summary: 'List workflows',
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: {
    query: z.object({
      ...pageQuery(15, 100),
      status: WorkflowStatus.optional(),
      trigger_type: TriggerType.optional(),
      search: storedText(z.string().max(200))
        .optional()
        .openapi({ description: 'Matches name or description' }),
    }),
  },
  responses: {
    200: jsonContent(paginated(WorkflowSummary, 'WorkflowList'), 'Workflows'),
    ...errorResponses(422),
  },
});

export function registerListWorkflows(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const page = { page: query.page, perPage: query.per_page };
    const { rows, total } = await listWorkflows({
      ctx: c.get('ctx'),
      input: { ...page, status: query.status, search: query.search, triggerType: query.trigger_type },
    });
    const filters = { status: query.status, search: query.search, trigger_type: query.trigger_type };
    return c.json(paginate(rows, total, page, '/api/v1/workflows', filters), 200);
  });
}
