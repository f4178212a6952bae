import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { getPollStatus } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';

const PollStatus = z
  .object({
    workflow_id: z.string(),
    trigger_type: z.string(),
    status: z.string(),
    last_polled_at: z.string().nullable(),
    last_status: z.enum(['ok', 'error']).nullable(),
    last_error: z.object({ message: z.string(), code: z.string() }).nullable(),
    last_new_items: z.number().int().nullable(),
    baseline_taken_at: z.string().nullable(),
  })
  .openapi('PollStatus');

const route = createRoute({
  method: 'get',
  operationId: 'getWorkflowPollStatus',
  path: '/workflows/{id}/poll-status',
  tags: ['Workflows'],
  summary: "A polling workflow's last poll: when, how it went, the error, how many new items",
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: { params: IdParam },
  responses: {
    200: jsonContent(PollStatus, 'The last poll (nulls: not polled yet)'),
    ...errorResponses(404),
  },
});

export function registerGetPollStatus(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const status = await getPollStatus({ ctx: c.get('ctx'), input: { workflowId: c.req.valid('param').id } });
    return c.json(status, 200);
  });
}
