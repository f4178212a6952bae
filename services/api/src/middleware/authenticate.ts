import type { Database } from '@weft/db';
import { AppError, authenticateApiKey } from '@weft/services';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { clientIp } from './client-ip';

export interface AuthOptions {
  db: Database;
  ratePerKey: number;
  ratePerOrg: number;
  trustedProxyHops: number;
}

/** `X-Api-Key: <key>` or `Authorization: Bearer <key>`. */
function presentedKey(header: (name: string) => string | undefined): string | undefined {
  const direct = header('x-api-key');
  if (direct !== undefined) return direct.trim();
  const authorization = header('authorization');
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/**
 * Authenticates the API key, counts the request against the key's and the organization's
 * per-minute limits (both in PostgreSQL, so every replica shares them) and sets the tenant context.
 * Every authenticated response carries X-RateLimit-Limit/Remaining; a 429 adds Retry-After.
 */
export function authenticate(options: AuthOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = presentedKey((name) => c.req.header(name));
    if (!key)
      throw new AppError('unauthenticated', 'An API key is required (X-Api-Key or Authorization: Bearer).');
    const auth = await authenticateApiKey(options.db, key);
    if (!auth) throw new AppError('unauthenticated', 'The API key is invalid or has been revoked.');

    const keyRemaining = options.ratePerKey - auth.keyCount;
    const orgRemaining = options.ratePerOrg - auth.orgCount;
    const [limit, remaining] =
      keyRemaining <= orgRemaining ? [options.ratePerKey, keyRemaining] : [options.ratePerOrg, orgRemaining];
    c.header('X-RateLimit-Limit', String(limit));
    c.header('X-RateLimit-Remaining', String(Math.max(0, remaining)));
    if (remaining < 0) {
      const retryAfter = Math.max(1, Math.ceil((auth.windowStart.getTime() + 60_000 - Date.now()) / 1000));
      throw new AppError('rate_limited', 'Too many requests; retry after the time in Retry-After.', {}, 429, {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': '0',
      });
    }
    c.set('auth', auth);
    c.set('ctx', {
      db: options.db,
      organizationId: auth.organizationId,
      actor: { apiKeyId: auth.apiKeyId, ipAddress: clientIp(c, options.trustedProxyHops) },
    });
    await next();
  };
}
