import { bindCaller, type Caller, callerRefusal, confirmCaller, type Database } from '@weft/db';
import { AppError } from '@weft/services';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiKeyGate } from '../auth/api-key-gate';
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

const invalidKey = () => new AppError('unauthenticated', 'The API key is invalid or has been revoked.');

/**
 * Authenticates the API key, admits the request against the key's and the organization's
 * per-minute limits (shared by every replica through PostgreSQL, see auth/rate-limit-leases.ts) and
 * sets the tenant context. Every authenticated response carries X-RateLimit-Limit/Remaining; a 429
 * adds Retry-After.
 *
 * The key usually comes from the in-process cache; PostgreSQL then confirms it during the request:
 * the service verbs' tenancy transactions re-check it before their work (the context's database
 * handle carries the caller), and a request that opened none is re-checked here before it is
 * answered. A refusal answers 401 (revoked) or 403 (narrowed) and drops the cache entry.
 */
export function authenticate(options: AuthOptions): MiddlewareHandler<AppEnv> {
  const gate = new ApiKeyGate(options.db, { perKey: options.ratePerKey, perOrg: options.ratePerOrg });
  return async (c, next) => {
    const key = presentedKey((name) => c.req.header(name));
    if (!key)
      throw new AppError('unauthenticated', 'An API key is required (X-Api-Key or Authorization: Bearer).');
    const admitted = await gate.admit(key);
    if (!admitted) throw invalidKey();

    const { admission } = admitted;
    const limit = String(admission.limit);
    if (!admission.admitted) {
      throw new AppError('rate_limited', 'Too many requests; retry after the time in Retry-After.', {}, 429, {
        'Retry-After': String(admission.retryAfterSeconds),
        'X-RateLimit-Limit': limit,
        'X-RateLimit-Remaining': '0',
      });
    }
    c.header('X-RateLimit-Limit', limit);
    c.header('X-RateLimit-Remaining', String(admission.remaining));

    const { apiKeyId, organizationId } = admitted.key;
    const caller: Caller = { apiKeyId, organizationId, reliedOn: [], confirmed: admitted.fresh };
    c.set('auth', admitted.key);
    c.set('caller', caller);
    c.set('forgetCachedKey', () => gate.forget(admitted.keyHash));
    c.set('ctx', {
      db: bindCaller(options.db, caller),
      organizationId,
      actor: { apiKeyId, ipAddress: clientIp(c, options.trustedProxyHops) },
    });
    await next();

    if (callerRefusal(c.error)) {
      gate.forget(admitted.keyHash);
    } else if (!caller.confirmed) {
      // Nothing in this request asked PostgreSQL about the key (a static catalog, an early 4xx).
      await confirmCaller(options.db, caller).catch((error: unknown) => {
        if (callerRefusal(error)) gate.forget(admitted.keyHash);
        throw error;
      });
    }
  };
}
