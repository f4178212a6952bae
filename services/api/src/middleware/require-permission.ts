import { confirmCaller } from '@weft/db';
import { AppError, hasPermission, type Permission } from '@weft/domain';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';

/**
 * Route-level guard: 403 when the authenticated key lacks the permission.
 *
 * A grant read from the key cache is recorded as relied on, so the request's tenancy transaction
 * re-checks it in PostgreSQL. A denial read from the cache is checked there at once, since the key
 * may have gained the permission since the entry was made.
 */
export function requirePermission(permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const caller = c.get('caller');
    if (!hasPermission(c.get('auth').permissions, permission)) {
      if (caller.confirmed) {
        throw new AppError(
          'forbidden',
          c.get('session')
            ? `Your role does not allow this (${permission}).`
            : `This API key lacks the permission ${permission}.`,
        );
      }
      // Throws CallerRefused (403, or 401 if the key is gone) unless the permission is held now.
      await confirmCaller(c.get('ctx').db, caller, [permission]).catch((error: unknown) => {
        c.get('forgetCachedKey')();
        throw error;
      });
      c.get('forgetCachedKey')();
    }
    caller.reliedOn.push(permission);
    await next();
  });
}
