import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { listChatTemplates } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { ChatTemplateList } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listChatTemplates',
  path: '/chat/templates',
  tags: ['Chat'],
  summary: "The chat account's message templates as last synced, with their approval status",
  security,
  middleware: [requirePermission('modules.view')] as const,
  responses: { 200: jsonContent(ChatTemplateList, 'Templates'), ...errorResponses() },
});

export function registerListChatTemplates(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    return c.json({ data: await listChatTemplates({ ctx: c.get('ctx'), input: {} }) }, 200);
  });
}
