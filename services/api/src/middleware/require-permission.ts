import { AppError, hasPermission, type Permission } from '@weft/services';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';

/** Route-level guard: 403 when the authenticated key lacks the permission. */
export function requirePermission(permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!hasPermission(c.get('auth').permissions, permission)) {
      throw new AppError('forbidden', `This API key lacks the permission ${permission}.`);
    }
    await next();
  });
}
