import type { ServerResponse } from 'node:http';
import type { CaptchaSettings } from '@weft/domain';

/**
 * On every web app response, pages and assets alike. The Content-Security-Policy (with
 * `frame-ancestors 'none'`) comes from SvelteKit's `kit.csp`, which puts a fresh nonce on each page's
 * scripts; X-Frame-Options repeats the framing ban for browsers without CSP level 2. Invitation and
 * reset links carry their token in the path: Referer never leaves the origin.
 */
const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

/** What a captcha widget loads (its script, its frames, its calls, its styles), as each provider documents. */
const CAPTCHA_SOURCES: Record<CaptchaSettings['provider'], readonly string[]> = {
  hcaptcha: ['https://hcaptcha.com', 'https://*.hcaptcha.com'],
  recaptcha: [
    'https://www.google.com/recaptcha/',
    'https://www.gstatic.com/recaptcha/',
    'https://recaptcha.google.com/recaptcha/',
  ],
};

/** Sources the page may load beyond its own origin: the switched-on captcha's, its script URL's origin included. */
export function captchaCspSources(
  captcha: Pick<CaptchaSettings, 'provider' | 'scriptUrl'> | undefined,
): string[] {
  if (!captcha) return [];
  const script = captcha.scriptUrl ? [new URL(captcha.scriptUrl).origin] : [];
  return [...new Set([...CAPTCHA_SOURCES[captcha.provider], ...script])];
}

const WIDENED_DIRECTIVES = ['script-src', 'frame-src', 'connect-src', 'style-src'];

/** The policy with `sources` added to the directives a captcha widget needs (frame-src created when absent). */
export function widenCsp(policy: string, sources: readonly string[]): string {
  if (sources.length === 0) return policy;
  const directives = policy
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean);
  const extra = sources.join(' ');
  const names = directives.map((d) => d.split(/\s+/)[0]);
  const widened = directives.map((d) =>
    WIDENED_DIRECTIVES.includes(d.split(/\s+/)[0] ?? '') ? `${d} ${extra}` : d,
  );
  if (!names.includes('frame-src')) widened.push(`frame-src 'self' ${extra}`);
  return widened.join('; ');
}

/** Sets the security headers on a web response, and widens the page's CSP by `cspSources` as SvelteKit sets it. */
export function applyWebSecurityHeaders(res: ServerResponse, cspSources: readonly string[]): void {
  for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS)) res.setHeader(name, value);
  if (cspSources.length === 0) return;
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name, value) =>
    setHeader(
      name,
      name.toLowerCase() === 'content-security-policy' ? widenCsp(String(value), cspSources) : value,
    );
}
