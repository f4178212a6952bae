import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { revokeApiKey } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, IdParam, jsonContent, security } from '../../openapi-schemas';
import { ApiKeyMetadata } from './list';

const route = createRoute({
  method: 'post',
  operationId: 'revokeApiKey',
  path: '/api-keys/{id}/revoke',
  tags: ['API keys'],
  summary: 'Revoke an API key; it is refused from the next request on',
  security,
  middleware: [requirePermission('api_keys.manage'), idempotent] as const,
  request: { params: IdParam, headers: IdempotencyHeader },
  responses: { 200: jsonContent(ApiKeyMetadata, 'The revoked key'), ...errorResponses(404) },
});

export function registerRevokeApiKey(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const key = await revokeApiKey({ ctx: c.get('ctx'), input: { id: c.req.valid('param').id } });
    return c.json(key, 200);
  });
}
