import { describe, expect, it } from 'vitest';
import { captchaCspSources, widenCsp } from './web-security-headers';

describe('the web CSP and a captcha', () => {
  it('allows nothing more without a captcha', () => {
    const policy = "default-src 'self'; script-src 'self' 'nonce-abc'";
    expect(captchaCspSources(undefined)).toEqual([]);
    expect(widenCsp(policy, [])).toBe(policy);
  });

  it("adds the provider's and the script URL's origins where a widget needs them, nowhere else", () => {
    const sources = captchaCspSources({ provider: 'hcaptcha', scriptUrl: 'http://127.0.0.1:9/api.js?x=1' });
    expect(sources).toEqual(['https://hcaptcha.com', 'https://*.hcaptcha.com', 'http://127.0.0.1:9']);
    const widened = widenCsp(
      "default-src 'self'; script-src 'self' 'nonce-abc'; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
      sources,
    );
    const directive = (name: string) => widened.split('; ').find((d) => d.startsWith(`${name} `));
    expect(directive('script-src')).toBe(`script-src 'self' 'nonce-abc' ${sources.join(' ')}`);
    expect(directive('frame-src')).toBe(`frame-src 'self' ${sources.join(' ')}`);
    expect(directive('connect-src')).toContain('https://*.hcaptcha.com');
    expect(directive('style-src')).toContain('https://hcaptcha.com');
    expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directive('default-src')).toBe("default-src 'self'");
  });

  it('knows reCAPTCHA', () => {
    expect(
      captchaCspSources({ provider: 'recaptcha', scriptUrl: 'https://www.google.com/recaptcha/api.js' }),
    ).toContain('https://www.gstatic.com/recaptcha/');
  });
});
