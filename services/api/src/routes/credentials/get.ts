import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getCredential } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Credential } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getCredential',
  path: '/credentials/{id}',
  tags: ['Credentials'],
  summary: 'Get a credential (secrets masked)',
  security,
  middleware: [requirePermission('credentials.view')] as const,
  request: { params: IdParam },
  responses: { 200: jsonContent(Credential, 'The credential'), ...errorResponses(404) },
});

export function registerGetCredential(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const credential = await getCredential({ ctx: c.get('ctx'), input: { id: c.req.valid('param').id } });
    return c.json(credential, 200);
  });
}
