import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { CredentialUpdateInput, updateCredential } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdParam, jsonContent, security } from '../../openapi-schemas';
import { Credential } from './schemas';

const route = createRoute({
  method: 'put',
  operationId: 'updateCredential',
  path: '/credentials/{id}',
  tags: ['Credentials'],
  summary: 'Replace name and fields of a credential; a secret field left out keeps its stored value',
  security,
  middleware: [requirePermission('credentials.manage')] as const,
  request: {
    params: IdParam,
    body: { content: { 'application/json': { schema: CredentialUpdateInput } }, required: true },
  },
  responses: {
    200: jsonContent(Credential, 'The credential, secrets masked'),
    ...errorResponses(404, 409, 422),
  },
});

export function registerUpdateCredential(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const credential = await updateCredential({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id, credential: c.req.valid('json') as CredentialUpdateInput },
      deps: { secrets: c.get('secrets') },
    });
    return c.json(credential, 200);
  });
}
