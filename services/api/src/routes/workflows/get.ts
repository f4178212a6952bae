import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getWorkflow } from '@weft/services';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Workflow } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/workflows/{id}',
  tags: ['Workflows'],
  summary: 'Get a workflow with its nodes and edges',
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: { params: IdParam },
  responses: { 200: jsonContent(Workflow, 'The workflow'), ...errorResponses(404) },
});

export function registerGetWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const workflow = await getWorkflow({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      siteUrl: c.get('siteUrl'),
    });
    return c.json(workflow, 200);
  });
}
