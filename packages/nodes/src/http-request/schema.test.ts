import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { HttpRequestConfig } from './schema';

describe('action.http_request config', () => {
  it('is the schema registered for action.http_request', () => {
    expect(getNodeType('action.http_request')?.config).toBe(HttpRequestConfig);
  });

  it('accepts a URL with expressions and defaults method, timeout and fail_on_status', () => {
    const parsed = HttpRequestConfig.parse({
      url: 'https://api.example.com/{{trigger.id}}',
      headers: { 'X-Token': '{{trigger.token}}' },
    });
    expect(parsed).toMatchObject({
      method: 'GET',
      timeout_ms: 30_000,
      fail_on_status: true,
      send_idempotency_key: true,
    });
  });

  it('refuses a header value with CRLF (header injection)', () => {
    const result = HttpRequestConfig.safeParse({
      url: 'https://x.test',
      headers: { 'X-A': 'ok\r\nSet-Cookie: a=b' },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['headers', 'X-A']);
  });

  it('refuses a bare LF or NUL in a header value and a header name with a space or colon', () => {
    for (const headers of [{ 'X-A': 'a\nb' }, { 'X-A': 'a\u0000b' }, { 'X A': 'v' }, { 'X-A:': 'v' }]) {
      expect(
        HttpRequestConfig.safeParse({ url: 'https://x.test', headers }).success,
        JSON.stringify(headers),
      ).toBe(false);
    }
  });

  it('refuses an unknown method, an empty URL and an out-of-range timeout', () => {
    expect(HttpRequestConfig.safeParse({ url: 'https://x.test', method: 'TRACE' }).success).toBe(false);
    expect(HttpRequestConfig.safeParse({ url: '' }).success).toBe(false);
    expect(HttpRequestConfig.safeParse({ url: 'https://x.test', timeout_ms: 10 }).success).toBe(false);
    expect(HttpRequestConfig.safeParse({ url: 'https://x.test', timeout_ms: 300_001 }).success).toBe(false);
  });
});
