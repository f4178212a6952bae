import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getExecution } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Execution } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getExecution',
  path: '/executions/{id}',
  tags: ['Executions'],
  summary: 'Get an execution with its steps',
  security,
  middleware: [requirePermission('executions.view')] as const,
  request: { params: IdParam },
  responses: { 200: jsonContent(Execution, 'The execution'), ...errorResponses(404) },
});

export function registerGetExecution(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const execution = await getExecution({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      temporalUiUrl: c.get('temporalUiUrl'),
    });
    return c.json(execution, 200);
  });
}
