import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { createWorkflow, WorkflowInput } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, jsonContent, security } from '../../openapi-schemas';
import { Workflow } from './schemas';

const route = createRoute({
  method: 'post',
  operationId: 'createWorkflow',
  path: '/workflows',
  tags: ['Workflows'],
  summary: 'Create a workflow',
  security,
  middleware: [requirePermission('workflows.create'), idempotent] as const,
  request: {
    headers: IdempotencyHeader,
    body: { content: { 'application/json': { schema: WorkflowInput } }, required: true },
  },
  responses: { 201: jsonContent(Workflow, 'The workflow'), ...errorResponses(422) },
});

export function registerCreateWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const workflow = await createWorkflow({
      ctx: c.get('ctx'),
      input: c.req.valid('json'),
      siteUrl: c.get('siteUrl'),
      secrets: c.get('secrets'),
      engine: c.get('engine'),
    });
    return c.json(workflow, 201);
  });
}
