import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { updateWorkflow, WorkflowInput } from '@weft/services';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Workflow } from './schemas';

const route = createRoute({
  method: 'put',
  path: '/workflows/{id}',
  tags: ['Workflows'],
  summary: 'Replace a workflow (nodes and edges are replaced fully)',
  security,
  middleware: [requirePermission('workflows.update')] as const,
  request: {
    params: IdParam,
    body: { content: { 'application/json': { schema: WorkflowInput } }, required: true },
  },
  responses: { 200: jsonContent(Workflow, 'The workflow'), ...errorResponses(404, 422) },
});

export function registerUpdateWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const workflow = await updateWorkflow({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id, workflow: c.req.valid('json') },
      siteUrl: c.get('siteUrl'),
      secrets: c.get('secrets'),
      engine: c.get('engine'),
    });
    return c.json(workflow, 200);
  });
}
