import { describe, expect, it } from 'vitest';
import { OutboundHttpError } from './errors';
import {
  checkMethod,
  checkOutboundHeaders,
  checkOutboundUrl,
  MAX_URL_LENGTH,
  redirectedRequest,
  redirectTarget,
} from './request-policy';

describe('checkOutboundUrl', () => {
  it.each([
    'http://api.example.com',
    'https://api.example.com:8443/v1/items?x=1#frag',
    'https://127.0.0.1/', // allowed to save; refused (or allowlisted) when requested
    'HTTPS://API.EXAMPLE.COM/',
  ])('accepts %s', (url) => {
    expect(checkOutboundUrl(url)).toBeUndefined();
  });

  it.each([
    ['file:///etc/passwd', /scheme file:/],
    ['gopher://127.0.0.1:6379/_INFO', /scheme gopher:/],
    ['data:text/plain,hello', /scheme data:/],
    ['ftp://example.com/x', /scheme ftp:/],
    ['javascript:alert(1)', /scheme javascript:/],
    ['ws://example.com/', /scheme ws:/],
    ['http://evil.com@127.0.0.1/', /user name or password/],
    ['https://user:pass@example.com/', /user name or password/],
    ['https://:pass@example.com/', /user name or password/],
    ['not a url', /not valid/],
    ['/relative/path', /not valid/],
    ['http://', /not valid/],
    ['http://256.1.1.1/', /not valid/],
    [`https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`, /longer than/],
  ])('refuses %s', (url, message) => {
    expect(checkOutboundUrl(url)).toMatch(message);
  });
});

describe('checkOutboundHeaders', () => {
  it('accepts ordinary headers', () => {
    expect(
      checkOutboundHeaders({
        Authorization: 'Bearer x',
        'X-Idempotency-Key': 'a:b:1',
        Accept: '*/*',
        'X-T': 'a\tb',
      }),
    ).toBeUndefined();
  });

  it.each([
    [{ 'X-A': 'a\r\nX-Injected: 1' }, /line break/],
    [{ 'X-A': 'a\nb' }, /line break/],
    [{ 'X-A': 'a\rb' }, /line break/],
    [{ 'X-A': 'a\u0000b' }, /line break/],
    [{ 'X-A': 'emoji \u{1F600}' }, /non-Latin-1/],
    [{ 'X-A\r\nX-B': 'v' }, /name/],
    [{ 'X A': 'v' }, /name/],
    [{ '': 'v' }, /name/],
    [{ Host: 'internal.example' }, /set by the client/],
    [{ 'content-length': '5' }, /set by the client/],
    [{ 'Transfer-Encoding': 'chunked' }, /set by the client/],
    [{ Connection: 'close' }, /set by the client/],
  ])('refuses %j', (headers, message) => {
    expect(checkOutboundHeaders(headers)).toMatch(message);
  });
});

describe('checkMethod', () => {
  it('accepts tokens and refuses CONNECT and junk', () => {
    expect(checkMethod('GET')).toBeUndefined();
    expect(checkMethod('PROPFIND')).toBeUndefined();
    expect(checkMethod('connect')).toMatch(/CONNECT/);
    expect(checkMethod('GET /admin HTTP/1.1\r\n')).toMatch(/not valid/);
    expect(checkMethod('')).toMatch(/not valid/);
  });
});

describe('redirectTarget', () => {
  const from = new URL('https://a.example.com/start?q=1');
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error instanceof OutboundHttpError ? error.code : 'other';
    }
    return 'none';
  };

  it('resolves relative locations and drops the fragment', () => {
    expect(redirectTarget(from, '/next#x').href).toBe('https://a.example.com/next');
    expect(redirectTarget(from, '//b.example.com/p').href).toBe('https://b.example.com/p');
    expect(redirectTarget(new URL('http://a.example.com/'), 'https://b.example.com/').href).toBe(
      'https://b.example.com/',
    );
  });

  it('refuses https -> http, other schemes and user info', () => {
    expect(codeOf(() => redirectTarget(from, 'http://a.example.com/'))).toBe('ssrf_blocked');
    expect(codeOf(() => redirectTarget(from, 'file:///etc/passwd'))).toBe('invalid_url');
    expect(codeOf(() => redirectTarget(from, 'gopher://a.example.com/'))).toBe('invalid_url');
    expect(codeOf(() => redirectTarget(from, 'https://user@b.example.com/'))).toBe('invalid_url');
    expect(codeOf(() => redirectTarget(from, 'http://[::1'))).toBe('invalid_url');
  });
});

describe('redirectedRequest', () => {
  const from = new URL('https://a.example.com/');
  const same = new URL('https://a.example.com/next');
  const other = new URL('https://b.example.com/');
  const post = {
    method: 'POST',
    headers: { Authorization: 'Bearer s', Cookie: 'c=1', 'Content-Type': 'application/json', 'X-Key': 'k' },
    body: '{"a":1}',
  };

  it('turns POST into a body-less GET on 301, 302 and 303', () => {
    for (const status of [301, 302, 303]) {
      expect(redirectedRequest(status, from, same, post)).toEqual({
        method: 'GET',
        headers: { Authorization: 'Bearer s', Cookie: 'c=1', 'X-Key': 'k' },
        body: undefined,
      });
    }
  });

  it('repeats method and body on 307 and 308', () => {
    expect(redirectedRequest(307, from, same, post)).toEqual(post);
    expect(redirectedRequest(308, from, same, post)).toEqual(post);
  });

  it('keeps PUT on 302 and HEAD on 303', () => {
    expect(redirectedRequest(302, from, same, { ...post, method: 'PUT' }).method).toBe('PUT');
    expect(redirectedRequest(303, from, same, { ...post, method: 'HEAD' }).method).toBe('HEAD');
  });

  it('does not send credentials to another origin', () => {
    expect(redirectedRequest(307, from, other, post).headers).toEqual({
      'Content-Type': 'application/json',
      'X-Key': 'k',
    });
  });
});
