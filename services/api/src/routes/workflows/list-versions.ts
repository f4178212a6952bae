import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listWorkflowVersions, pageQuery, paginate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';

export const WorkflowVersionSummary = z
  .object({
    version: z.number().int(),
    saved_at: z.string(),
    saved_by_user_id: z.string().nullable(),
    saved_by_api_key_id: z.string().nullable(),
  })
  .openapi('WorkflowVersionSummary');

const route = createRoute({
  method: 'get',
  path: '/workflows/{id}/versions',
  tags: ['Workflows'],
  summary: 'Every saved version of a workflow, newest first, with who saved it',
  operationId: 'listWorkflowVersions',
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: {
    params: z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }),
    query: z.object(pageQuery(25, 100)),
  },
  responses: {
    200: jsonContent(paginated(WorkflowVersionSummary, 'WorkflowVersionList'), 'Versions'),
    ...errorResponses(404, 422),
  },
});

export function registerListWorkflowVersions(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    const page = { page: query.page, perPage: query.per_page };
    const { rows, total } = await listWorkflowVersions(c.get('ctx'), id, page);
    return c.json(paginate(rows, total, page, `/api/v1/workflows/${id}/versions`, {}), 200);
  });
}
