import type { OpenAPIHono } from '@hono/zod-openapi';
import type { CredentialDeps } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { registerCreateCredential } from './create';
import { registerDeleteCredential } from './delete';
import { registerGetCredential } from './get';
import { registerListCredentials } from './list';
import { registerUpdateCredential } from './update';

/** Credentials: named, encrypted secrets that workflows refer to by id. */
export function registerCredentialRoutes(app: OpenAPIHono<AppEnv>, deps: CredentialDeps) {
  registerListCredentials(app);
  registerCreateCredential(app, deps);
  registerGetCredential(app);
  registerUpdateCredential(app, deps);
  registerDeleteCredential(app);
}
