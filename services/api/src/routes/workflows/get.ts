import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getWorkflow, hasPermission } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Workflow } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getWorkflow',
  path: '/workflows/{id}',
  tags: ['Workflows'],
  summary: 'Get a workflow with its nodes and edges (webhook_url only with workflows.execute or .update)',
  security,
  middleware: [requirePermission('workflows.view')] as const,
  request: { params: IdParam },
  responses: { 200: jsonContent(Workflow, 'The workflow'), ...errorResponses(404) },
});

function mayUseHookUrl(permissions: string[]): boolean {
  return hasPermission(permissions, 'workflows.execute') || hasPermission(permissions, 'workflows.update');
}

export function registerGetWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const workflow = await getWorkflow({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      // The hook URL is a capability (its token starts executions): only for callers who could
      // start or change the workflow anyway.
      siteUrl: mayUseHookUrl(c.get('auth').permissions) ? c.get('siteUrl') : undefined,
    });
    return c.json(workflow, 200);
  });
}
