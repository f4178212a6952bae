import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { type ChatProviderDeps, type SecretBox, syncChatTemplates } from '@weft/domain';
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

export function registerSyncChatTemplates(
  app: OpenAPIHono<AppEnv>,
  deps: () => ChatProviderDeps & { secrets: SecretBox },
) {
  app.openapi(route, async (c) => {
    const ctx = c.get('ctx');
    return c.json({ data: await syncChatTemplates(ctx.db, deps(), ctx.organizationId) }, 200);
  });
}
