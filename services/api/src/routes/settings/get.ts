import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getSettings } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { Settings } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'getSettings',
  path: '/settings',
  tags: ['Settings'],
  summary: "The organization's settings (defaults until changed)",
  security,
  middleware: [requirePermission('settings.view')] as const,
  responses: { 200: jsonContent(Settings, 'The settings'), ...errorResponses() },
});

export function registerGetSettings(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => c.json(await getSettings({ ctx: c.get('ctx') }), 200));
}
