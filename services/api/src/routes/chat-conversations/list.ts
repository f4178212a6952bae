import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listConversations, pageQuery } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';

const Conversation = z
  .object({
    id: z.string(),
    phone_hash: z
      .string()
      .openapi({ description: 'SHA-256 of the E.164 number; the number is never stored.' }),
    last_inbound_at: z.string(),
    window_expires_at: z.string(),
    window_open: z.boolean().openapi({ description: 'Free-form text may be sent (24-hour window).' }),
  })
  .openapi('ChatConversation');

const route = createRoute({
  method: 'get',
  path: '/chat/conversations',
  tags: ['Chat'],
  summary: 'Chat contacts: number hash, 24-hour window state, last inbound message (never a number)',
  operationId: 'listChatConversations',
  security,
  middleware: [requirePermission('modules.view')] as const,
  request: { query: z.object(pageQuery(25, 100)) },
  responses: {
    200: jsonContent(paginated(Conversation, 'ChatConversationList'), 'Conversations'),
    ...errorResponses(422),
  },
});

export function registerListChatConversations(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { page, per_page } = c.req.valid('query');
    return c.json(await listConversations(c.get('ctx'), { page, perPage: per_page }), 200);
  });
}
