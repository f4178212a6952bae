import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { APPROVAL_STATUSES, listApprovals, pageQuery, paginate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';
import { Approval } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listApprovals',
  path: '/approvals',
  tags: ['Approvals'],
  summary: 'List approvals asked by executions, newest first (pending: still awaited)',
  security,
  middleware: [requirePermission('approvals.view')] as const,
  request: { query: z.object({ status: z.enum(APPROVAL_STATUSES).optional(), ...pageQuery(15, 100) }) },
  responses: { 200: jsonContent(paginated(Approval, 'ApprovalList'), 'Approvals'), ...errorResponses(422) },
});

export function registerListApprovals(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const page = { page: query.page, perPage: query.per_page };
    const { rows, total } = await listApprovals({
      ctx: c.get('ctx'),
      input: { ...page, ...(query.status ? { status: query.status } : {}) },
    });
    return c.json(paginate(rows, total, page, '/api/v1/approvals', { status: query.status }), 200);
  });
}
