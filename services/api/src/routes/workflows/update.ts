import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { updateWorkflow, WorkflowInput } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Workflow } from './schemas';

const route = createRoute({
  method: 'put',
  operationId: 'updateWorkflow',
  path: '/workflows/{id}',
  tags: ['Workflows'],
  summary: 'Replace a workflow (nodes and edges are replaced fully)',
  security,
  middleware: [requirePermission('workflows.update')] as const,
  request: {
    params: IdParam,
    headers: z.object({
      'if-match': z
        .string()
        .regex(/^(W\/)?"?[0-9]{1,9}"?$/, 'must be the workflow version you edited, e.g. "7"')
        .optional()
        .openapi({
          description:
            'The version this edit is based on (the `version` field or the ETag of GET): a newer saved version answers 409 instead of being overwritten',
        }),
    }),
    body: { content: { 'application/json': { schema: WorkflowInput } }, required: true },
  },
  responses: { 200: jsonContent(Workflow, 'The workflow'), ...errorResponses(404, 409, 422) },
});

export function registerUpdateWorkflow(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const workflow = await updateWorkflow({
      ctx: c.get('ctx'),
      input: {
        id: c.req.valid('param').id,
        workflow: c.req.valid('json'),
        expectedVersion: versionOf(c.req.valid('header')['if-match']),
      },
      siteUrl: c.get('siteUrl'),
      secrets: c.get('secrets'),
      engine: c.get('engine'),
    });
    return c.json(workflow, 200);
  });
}

const versionOf = (ifMatch: string | undefined) =>
  ifMatch === undefined ? undefined : Number(ifMatch.replace(/^W\//, '').replaceAll('"', ''));
