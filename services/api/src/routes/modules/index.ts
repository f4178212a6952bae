import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ModuleCheckDeps, ModuleDeps } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { registerDeleteModule } from './delete';
import { registerGetModule } from './get';
import { registerPutModule } from './put';
import { registerTestModule } from './test';

/** Organization modules (chat, email, ai): their provider configuration. */
export function registerModuleRoutes(
  app: OpenAPIHono<AppEnv>,
  deps: ModuleDeps & { check: () => ModuleCheckDeps },
) {
  registerGetModule(app);
  registerPutModule(app, deps);
  registerDeleteModule(app);
  registerTestModule(app, deps.check);
}
