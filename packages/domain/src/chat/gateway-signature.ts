import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The gateway's `X-Twilio-Signature`: base64 HMAC-SHA1 (key: auth_token) of the URL as configured at
 * the provider followed by every POST parameter, sorted by name, as `name + value` (each distinct
 * value of a repeated name, sorted). Checked with and without the default port, as the provider's
 * own library does, in constant time.
 */
export function gatewaySignature(authToken: string, url: string, params: [string, string][]): string {
  const byName = new Map<string, Set<string>>();
  for (const [name, value] of params) byName.set(name, (byName.get(name) ?? new Set()).add(value));
  let data = url;
  for (const name of [...byName.keys()].sort()) {
    for (const value of [...(byName.get(name) as Set<string>)].sort()) data += name + value;
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

function withAndWithoutDefaultPort(url: string): string[] {
  const parsed = new URL(url);
  const defaultPort = parsed.protocol === 'https:' ? '443' : '80';
  if (parsed.port === defaultPort || parsed.port === '') {
    const without = new URL(url);
    without.port = '';
    const withPort = `${without.protocol}//${without.hostname}:${defaultPort}${without.pathname}${without.search}`;
    return [without.toString(), withPort];
  }
  return [url];
}

export function validGatewaySignature(
  authToken: string,
  url: string,
  params: [string, string][],
  header: string | null | undefined,
): boolean {
  if (!header) return false;
  const given = Buffer.from(header);
  return withAndWithoutDefaultPort(url).some((candidate) => {
    const expected = Buffer.from(gatewaySignature(authToken, candidate, params));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
