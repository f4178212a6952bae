import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { EXECUTION_STATUS_FILTERS, listExecutions, pageQuery, paginate } from '@weft/services';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';
import { ExecutionSummary } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/executions',
  tags: ['Executions'],
  summary: 'List executions (status `completed` means success or partial)',
  security,
  middleware: [requirePermission('executions.view')] as const,
  request: {
    query: z.object({
      ...pageQuery(15, 100),
      workflow_id: z.uuid().optional(),
      status: z.enum(EXECUTION_STATUS_FILTERS).optional(),
      from: z.iso.datetime({ offset: true }).optional(),
      to: z.iso.datetime({ offset: true }).optional(),
    }),
  },
  responses: {
    200: jsonContent(paginated(ExecutionSummary, 'ExecutionList'), 'Executions'),
    ...errorResponses(422),
  },
});

export function registerListExecutions(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const q = c.req.valid('query');
    const page = { page: q.page, perPage: q.per_page };
    const { rows, total } = await listExecutions({
      ctx: c.get('ctx'),
      input: {
        ...page,
        workflowId: q.workflow_id,
        status: q.status,
        from: q.from ? new Date(q.from) : undefined,
        to: q.to ? new Date(q.to) : undefined,
      },
      temporalUiUrl: c.get('temporalUiUrl'),
    });
    const filters = { workflow_id: q.workflow_id, status: q.status, from: q.from, to: q.to };
    return c.json(paginate(rows, total, page, '/api/v1/executions', filters), 200);
  });
}
