import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { SettingsInput, updateSettings } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';
import { Settings } from './schemas';

const route = createRoute({
  method: 'put',
  operationId: 'updateSettings',
  path: '/settings',
  tags: ['Settings'],
  summary: 'Change settings: cart_inactivity_minutes (1-43200) applies to each cart from its next event',
  security,
  middleware: [requirePermission('settings.manage')] as const,
  request: { body: { content: { 'application/json': { schema: SettingsInput } }, required: false } },
  responses: { 200: jsonContent(Settings, 'The settings'), ...errorResponses(422) },
});

export function registerUpdateSettings(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) =>
    c.json(await updateSettings({ ctx: c.get('ctx'), input: c.req.valid('json') }), 200),
  );
}
