import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listCredentials, pageQuery, paginate } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';
import { Credential } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listCredentials',
  path: '/credentials',
  tags: ['Credentials'],
  summary: "List the organization's credentials (secrets masked)",
  security,
  middleware: [requirePermission('credentials.view')] as const,
  request: { query: z.object(pageQuery(15, 100)) },
  responses: {
    200: jsonContent(paginated(Credential, 'CredentialList'), 'Credentials'),
    ...errorResponses(422),
  },
});

export function registerListCredentials(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const page = { page: query.page, perPage: query.per_page };
    const { rows, total } = await listCredentials({ ctx: c.get('ctx'), input: page });
    return c.json(paginate(rows, total, page, '/api/v1/credentials', {}), 200);
  });
}
