import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { decideApproval } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Approval } from './schemas';

const DecisionBody = z
  .object({
    decision: z.enum(['approve', 'reject']),
    comment: z.string().max(2000).optional(),
  })
  .strict()
  .openapi('ApprovalDecision');

const route = createRoute({
  method: 'post',
  operationId: 'decideApproval',
  path: '/approvals/{id}/decision',
  tags: ['Approvals'],
  summary: 'Approve or reject: the waiting execution goes on (a decided approval is a 409)',
  security,
  middleware: [requirePermission('approvals.decide')] as const,
  request: {
    params: IdParam,
    body: { content: { 'application/json': { schema: DecisionBody } }, required: true },
  },
  responses: { 200: jsonContent(Approval, 'Decided'), ...errorResponses(404, 409, 422) },
});

export function registerDecideApproval(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const decided = await decideApproval({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id, decision: body.decision, comment: body.comment ?? null },
      engine: c.get('engine'),
    });
    return c.json(decided, 200);
  });
}
