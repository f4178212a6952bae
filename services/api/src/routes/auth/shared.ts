import { z } from '@hono/zod-openapi';
import { AppError, csrfTokenFor, type RequestOrigin } from '@weft/domain';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../app-env';
import { setSessionCookie } from '../../auth/web-session';
import { clientIp } from '../../middleware/client-ip';

export const SignedIn = z
  .object({
    two_factor_required: z.boolean().openapi({
      description:
        'True: the password was right; POST /auth/login/two-factor with a code finishes signing in.',
    }),
    csrf_token: z.string().openapi({ description: 'Send in X-CSRF-Token on every state-changing request.' }),
  })
  .openapi('SignedIn');

/** The sign-in forms are for someone without a session or key yet: they take no credentials. */
export const noCredentials: Record<string, string[]>[] = [];

export const Message = z.object({ message: z.string() }).openapi('Message');

/** Who is asking, for the audit trail and the per-IP limits. */
export function requestOrigin(c: Context<AppEnv>): RequestOrigin {
  return { ipAddress: clientIp(c, c.get('trustedProxyHops')), userAgent: c.req.header('user-agent') };
}

/** Sets the new session's cookie (the old id is never reused) and answers its CSRF token. */
export function answerSession<S extends 200 | 201>(
  c: Context<AppEnv>,
  session: { token: string; sessionId: string },
  twoFactorRequired: boolean,
  status: S,
) {
  const accounts = c.get('accounts');
  setSessionCookie(c, session.token, accounts.siteUrl, accounts.sessions.absoluteMinutes);
  const appKey = c.get('appKey');
  if (!appKey) throw new Error('No APP_KEY is configured for this API instance.');
  return c.json(
    { two_factor_required: twoFactorRequired, csrf_token: csrfTokenFor(appKey, session.sessionId) },
    status,
  );
}

/**
 * The sign-in forms take no session yet, so no CSRF token: they take JSON only (a cross-site HTML
 * form cannot send it without a CORS preflight, which only APP_URL passes) and refuse a request
 * whose Origin is another site.
 */
export function sameSiteOnly(siteUrl: string): MiddlewareHandler<AppEnv> {
  const site = new URL(siteUrl).origin;
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== site && c.req.header('sec-fetch-site') !== 'same-origin') {
      throw new AppError('forbidden', 'Cross-site sign-in requests are refused.');
    }
    await next();
  };
}
