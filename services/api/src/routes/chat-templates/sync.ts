import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { syncChatTemplates } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { ChatTemplateList } from './schemas';

const route = createRoute({
  method: 'post',
  operationId: 'syncChatTemplates',
  path: '/chat/templates/sync',
  tags: ['Chat'],
  summary: "Refresh the templates from the cloud provider (the business account's message_templates)",
  security,
  middleware: [requirePermission('modules.manage')] as const,
  responses: { 200: jsonContent(ChatTemplateList, 'Templates now'), ...errorResponses(404, 409, 422) },
});

export function registerSyncChatTemplates(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const ctx = c.get('ctx');
    return c.json({ data: await syncChatTemplates(ctx.db, c.get('providers')(), ctx.organizationId) }, 200);
  });
}
