import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getApproval } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Approval } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getApproval',
  path: '/approvals/{id}',
  tags: ['Approvals'],
  summary: 'Get an approval',
  security,
  middleware: [requirePermission('approvals.view')] as const,
  request: { params: IdParam },
  responses: { 200: jsonContent(Approval, 'The approval'), ...errorResponses(404) },
});

export function registerGetApproval(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    return c.json(await getApproval({ ctx: c.get('ctx'), input: { id: c.req.valid('param').id } }), 200);
  });
}
