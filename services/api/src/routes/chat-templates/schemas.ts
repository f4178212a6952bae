import { z } from '@hono/zod-openapi';

export const ChatTemplate = z
  .object({
    name: z.string(),
    language: z.string(),
    status: z
      .string()
      .openapi({ description: 'As the provider says: APPROVED, PENDING, REJECTED, PAUSED, …' }),
    category: z.string().nullable(),
    body_variables: z.number().int().openapi({ description: 'How many variables a send must give' }),
    synced_at: z.string(),
  })
  .openapi('ChatTemplate');

export const ChatTemplateList = z.object({ data: z.array(ChatTemplate) }).openapi('ChatTemplateList');
