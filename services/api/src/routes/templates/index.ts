import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env';
import { registerCloneTemplate } from './clone';
import { registerGetTemplate } from './get';
import { registerListTemplates } from './list';

export function registerTemplateRoutes(app: OpenAPIHono<AppEnv>) {
  registerListTemplates(app);
  registerGetTemplate(app);
  registerCloneTemplate(app);
}
