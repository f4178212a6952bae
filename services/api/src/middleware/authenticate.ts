import { bindCaller, type Caller, callerRefusal, confirmCaller, type Database } from '@weft/db';
import { AppError, authenticateSession, ROLE_PERMISSIONS } from '@weft/domain';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiKeyGate } from '../auth/api-key-gate';
import { assertCsrfToken, sessionToken } from '../auth/web-session';
import { clientIp } from './client-ip';

export interface AuthOptions {
  db: Database;
  ratePerKey: number;
  ratePerOrg: number;
  trustedProxyHops: number;
  /** SESSION_LIFETIME (minutes idle) for browser sessions. */
  sessionIdleMinutes: number;
  /** APP_KEY: the key the sessions' CSRF tokens derive from. */
  appKey?: Uint8Array;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

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
    if (!key) {
      const token = sessionToken(c);
      if (token !== undefined) return authenticateBrowser(c, next, token, options);
      throw new AppError('unauthenticated', 'An API key is required (X-Api-Key or Authorization: Bearer).');
    }
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

/**
 * A browser request: the session cookie, looked up in PostgreSQL on every request (one round trip
 * that also checks the idle and absolute limits and reads the role), and on every state-changing
 * request the session's CSRF token in X-CSRF-Token. The role's permissions then go through the
 * same route guards as an API key's.
 */
async function authenticateBrowser(
  c: Parameters<MiddlewareHandler<AppEnv>>[0],
  next: () => Promise<void>,
  token: string,
  options: AuthOptions,
) {
  const session = await authenticateSession(options.db, token, options.sessionIdleMinutes);
  if (!session || session.awaitingSecondFactor) {
    throw new AppError('unauthenticated', 'Your session has ended; sign in again.');
  }
  // A signed-in user has the per-key limit of an API key (RATE_LIMIT_PER_KEY a minute).
  const limit = String(options.ratePerKey);
  if (session.requestsThisMinute > options.ratePerKey) {
    const retryAfter = Math.max(1, Math.ceil((session.windowStart.getTime() + 60_000 - Date.now()) / 1000));
    throw new AppError('rate_limited', 'Too many requests; retry after the time in Retry-After.', {}, 429, {
      'Retry-After': String(retryAfter),
      'X-RateLimit-Limit': limit,
      'X-RateLimit-Remaining': '0',
    });
  }
  c.header('X-RateLimit-Limit', limit);
  c.header('X-RateLimit-Remaining', String(options.ratePerKey - session.requestsThisMinute));
  if (!SAFE_METHODS.has(c.req.method)) assertCsrfToken(c, options.appKey, session.sessionId);
  c.set('session', session);
  if (!session.organizationId || !session.role) {
    // Signed in but no longer a member anywhere: only the account routes (/me, sign-out) answer.
    if (!/\/(me|auth\/logout)(\/|$)/.test(c.req.path)) {
      throw new AppError('forbidden', 'You are not a member of any organization.');
    }
  }
  const organizationId = session.organizationId ?? '';
  const permissions = session.role ? [...ROLE_PERMISSIONS[session.role]] : [];
  // Fresh from PostgreSQL: nothing to re-check later, so the database handle carries no caller.
  c.set('auth', { apiKeyId: '', userId: session.userId, organizationId, permissions });
  c.set('caller', { apiKeyId: '', organizationId, reliedOn: [], confirmed: true });
  c.set('forgetCachedKey', () => {});
  c.set('ctx', {
    db: options.db,
    organizationId,
    actor: { userId: session.userId, ipAddress: clientIp(c, options.trustedProxyHops) },
  });
  await next();
}
