import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { credentialFormSpecs } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { FormSpecList } from './schemas';

const specs = credentialFormSpecs();

const route = createRoute({
  method: 'get',
  path: '/credential-types',
  tags: ['Credentials'],
  summary:
    'The credential types with the JSON Schema of their fields (to draw a form) and their secret fields',
  operationId: 'listCredentialTypes',
  security,
  middleware: [requirePermission('credentials.view')] as const,
  responses: { 200: jsonContent(FormSpecList, 'Credential types'), ...errorResponses() },
});

export function registerListCredentialTypes(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, (c) => c.json({ data: specs }, 200));
}
