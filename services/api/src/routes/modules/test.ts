import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { checkModule } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { ModuleParam, moduleOf } from './schemas';

const ModuleCheckResult = z
  .object({
    ok: z.boolean(),
    message: z.string(),
    code: z.enum(['authentication_failed', 'not_found', 'unreachable', 'provider_error']).optional(),
  })
  .openapi('ModuleCheck');

const route = createRoute({
  method: 'post',
  operationId: 'testModule',
  path: '/modules/{name}/test',
  tags: ['Modules'],
  summary: 'Check the stored configuration against the provider, without messaging anyone',
  description:
    'chat: reads the sending phone number (cloud) or the account (gateway); email: SMTP login and NOOP; ' +
    'ai: lists the models. A provider that refuses is answered 200 with ok false and a code.',
  security,
  middleware: [requirePermission('modules.manage')] as const,
  request: { params: ModuleParam },
  responses: { 200: jsonContent(ModuleCheckResult, 'What the provider said'), ...errorResponses(404) },
});

export function registerTestModule(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const providers = c.get('providers')();
    const result = await checkModule({
      ctx: c.get('ctx'),
      input: { module: moduleOf(c.req.valid('param').name) },
      deps: {
        ...providers,
        chatCloudBaseUrl: providers.cloudBaseUrl,
        chatGatewayBaseUrl: providers.gatewayBaseUrl,
      },
    });
    return c.json(result, 200);
  });
}
