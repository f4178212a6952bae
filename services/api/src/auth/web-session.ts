import type { ApiEnv } from '@weft/config';
import { type AccountsDeps, AppError, type CaptchaSettings, csrfTokenMatches } from '@weft/domain';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

/** The session cookie: HttpOnly, SameSite=Lax, Secure when the site is served over HTTPS. */
export const SESSION_COOKIE = 'weft_session';
/** The header a browser sends its session's CSRF token in on every POST, PUT, PATCH and DELETE. */
export const CSRF_HEADER = 'x-csrf-token';

export type WebEnv = Pick<
  ApiEnv,
  | 'APP_URL'
  | 'SESSION_LIFETIME'
  | 'SESSION_ABSOLUTE_LIFETIME'
  | 'PASSWORD_HASHER'
  | 'BCRYPT_ROUNDS'
  | 'REGISTRATION_ENABLED'
  | 'CAPTCHA_ENABLED'
  | 'CAPTCHA_PROVIDER'
  | 'HCAPTCHA_SITE_KEY'
  | 'HCAPTCHA_SECRET'
  | 'RECAPTCHA_SITE_KEY'
  | 'RECAPTCHA_SECRET'
  | 'CAPTCHA_VERIFY_URL'
  | 'CAPTCHA_SCRIPT_URL'
>;

/** Captcha settings from the environment; a switched-on captcha without its keys stops start-up. */
export function captchaSettings(env: Partial<WebEnv>): CaptchaSettings | undefined {
  if (!env.CAPTCHA_ENABLED) return undefined;
  const provider = env.CAPTCHA_PROVIDER ?? 'hcaptcha';
  const siteKey = provider === 'hcaptcha' ? env.HCAPTCHA_SITE_KEY : env.RECAPTCHA_SITE_KEY;
  const secret = provider === 'hcaptcha' ? env.HCAPTCHA_SECRET : env.RECAPTCHA_SECRET;
  if (!siteKey || !secret) {
    const prefix = provider.toUpperCase();
    throw new Error(`CAPTCHA_ENABLED needs ${prefix}_SITE_KEY and ${prefix}_SECRET.`);
  }
  const scriptUrl =
    env.CAPTCHA_SCRIPT_URL ??
    (provider === 'hcaptcha'
      ? 'https://js.hcaptcha.com/1/api.js?render=explicit'
      : `https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(siteKey)}`);
  return { provider, siteKey, secret, verifyUrl: env.CAPTCHA_VERIFY_URL, scriptUrl };
}

export function accountsDepsFrom(
  base: Pick<AccountsDeps, 'db' | 'secrets' | 'ssrfAllowlist' | 'logWarning'>,
  env: Partial<WebEnv> & Pick<WebEnv, 'APP_URL'>,
): AccountsDeps {
  return {
    ...base,
    sessions: {
      idleMinutes: env.SESSION_LIFETIME ?? 120,
      absoluteMinutes: env.SESSION_ABSOLUTE_LIFETIME ?? 24 * 60,
    },
    hasher: { kind: env.PASSWORD_HASHER ?? 'argon2id', bcryptRounds: env.BCRYPT_ROUNDS ?? 12 },
    captcha: captchaSettings(env),
    registrationEnabled: env.REGISTRATION_ENABLED ?? false,
    siteUrl: env.APP_URL,
  };
}

export const sessionToken = (c: Context) => getCookie(c, SESSION_COOKIE);

export function setSessionCookie(c: Context, token: string, siteUrl: string, absoluteMinutes: number) {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: siteUrl.startsWith('https:'),
    path: '/',
    maxAge: absoluteMinutes * 60,
  });
}

export function clearSessionCookie(c: Context, siteUrl: string) {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: siteUrl.startsWith('https:') });
}

/** 403 unless the request carries the session's CSRF token in X-CSRF-Token (nothing has run yet). */
export function assertCsrfToken(c: Context, appKey: Uint8Array | undefined, sessionId: string) {
  if (!csrfTokenMatches(appKey, sessionId, c.req.header(CSRF_HEADER))) {
    throw new AppError('forbidden', 'The CSRF token is missing or wrong; reload the page and try again.');
  }
}
