import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listApiKeys, pageQuery, paginate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';

export const ApiKeyMetadata = z
  .object({
    id: z.string(),
    name: z.string(),
    key_hint: z.string(),
    permissions: z.array(z.string()),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi('ApiKey');

const route = createRoute({
  method: 'get',
  operationId: 'listApiKeys',
  path: '/api-keys',
  tags: ['API keys'],
  summary: "List the organization's API keys (metadata only, never the key)",
  security,
  middleware: [requirePermission('api_keys.view')] as const,
  request: { query: z.object(pageQuery(15, 100)) },
  responses: { 200: jsonContent(paginated(ApiKeyMetadata, 'ApiKeyList'), 'Keys'), ...errorResponses(422) },
});

export function registerListApiKeys(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const page = { page: query.page, perPage: query.per_page };
    const { rows, total } = await listApiKeys({ ctx: c.get('ctx'), input: page });
    return c.json(paginate(rows, total, page, '/api/v1/api-keys', {}), 200);
  });
}
