import {
  claimIdempotencyKey,
  completeIdempotentRequest,
  fingerprintRequest,
  isValidIdempotencyKey,
  releaseIdempotencyKey,
  validationError,
} from '@weft/domain';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';

/**
 * Idempotency-Key for a POST route: a repeat within 10 minutes returns the stored response with
 * `Idempotent-Replayed: true` and does not run the operation again. Responses below 500 are kept;
 * a server error releases the key so the client can retry.
 *
 * It is route middleware placed after the route's permission check, so a replay is never served to
 * a caller who may not make the request; and the fingerprint includes the calling API key, so one
 * key can never be handed another key's stored response (for POST /api-keys: a plain key). The
 * stored response is sealed with APP_KEY's secret box.
 */
export const idempotent: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header('idempotency-key');
  if (c.req.method !== 'POST' || key === undefined) return next();
  if (!isValidIdempotencyKey(key)) {
    throw validationError({ 'Idempotency-Key': ['must be 1-255 visible ASCII characters'] });
  }
  const ctx = c.get('ctx');
  const auth = c.get('auth');
  const caller = auth.apiKeyId || `user:${auth.userId}`;
  const requestHash = fingerprintRequest(caller, c.req.method, c.req.path, await c.req.text());
  const secrets = c.get('secrets');
  const claim = await claimIdempotencyKey(ctx, secrets, {
    key,
    method: c.req.method,
    path: c.req.path,
    requestHash,
  });
  if (claim.kind === 'replay') {
    c.header('Idempotent-Replayed', 'true');
    return c.body(claim.body, claim.status as 200, { 'Content-Type': 'application/json' });
  }
  try {
    await next();
  } catch (error) {
    await releaseIdempotencyKey(ctx, key);
    throw error;
  }
  if (c.res.status >= 500) {
    await releaseIdempotencyKey(ctx, key);
  } else {
    await completeIdempotentRequest(ctx, secrets, key, {
      status: c.res.status,
      body: await c.res.clone().text(),
    });
  }
};
