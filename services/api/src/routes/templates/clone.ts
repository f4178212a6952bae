import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { cloneTemplate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, jsonContent, security } from '../../openapi-schemas';
import { Workflow } from '../workflows/schemas';
import { TemplateIdParam } from './schemas';

const route = createRoute({
  method: 'post',
  operationId: 'cloneTemplate',
  path: '/templates/{id}/clone',
  tags: ['Templates'],
  summary:
    "Create a draft workflow from a template in the caller's organization (a template that calls another clones that one too)",
  security,
  middleware: [requirePermission('workflows.create'), idempotent] as const,
  request: { params: TemplateIdParam, headers: IdempotencyHeader },
  responses: { 201: jsonContent(Workflow, 'The new draft workflow'), ...errorResponses(404) },
});

export function registerCloneTemplate(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const workflow = await cloneTemplate({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id },
      siteUrl: c.get('siteUrl'),
      secrets: c.get('secrets'),
      engine: c.get('engine'),
    });
    return c.json(workflow, 201);
  });
}
