import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { CredentialInput, createCredential } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, jsonContent, security } from '../../openapi-schemas';
import { Credential } from './schemas';

const route = createRoute({
  method: 'post',
  operationId: 'createCredential',
  path: '/credentials',
  tags: ['Credentials'],
  summary: 'Create a credential; its secret fields are stored encrypted and never answered back',
  security,
  middleware: [requirePermission('credentials.manage'), idempotent] as const,
  request: {
    headers: IdempotencyHeader,
    body: { content: { 'application/json': { schema: CredentialInput } }, required: true },
  },
  responses: { 201: jsonContent(Credential, 'The credential, secrets masked'), ...errorResponses(409, 422) },
});

export function registerCreateCredential(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const input = c.req.valid('json') as CredentialInput;
    const credential = await createCredential({
      ctx: c.get('ctx'),
      input,
      deps: { secrets: c.get('secrets') },
    });
    return c.json(credential, 201);
  });
}
