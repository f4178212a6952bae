import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { CreateApiKeyInput, createApiKey } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, jsonContent, security } from '../../openapi-schemas';

export const CreatedApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().openapi({ description: 'The plain key. Shown only in this response.' }),
    permissions: z.array(z.string()),
    created_at: z.string(),
    message: z.string(),
  })
  .openapi('CreatedApiKey');

const route = createRoute({
  method: 'post',
  operationId: 'createApiKey',
  path: '/api-keys',
  tags: ['API keys'],
  summary: 'Create an API key (the plain key is returned once)',
  security,
  middleware: [requirePermission('api_keys.manage'), idempotent] as const,
  request: {
    headers: IdempotencyHeader,
    body: { content: { 'application/json': { schema: CreateApiKeyInput } }, required: true },
  },
  responses: { 201: jsonContent(CreatedApiKey, 'The key'), ...errorResponses(422) },
});

export function registerCreateApiKey(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const created = await createApiKey({ ctx: c.get('ctx'), input: c.req.valid('json') });
    return c.json(created, 201);
  });
}
