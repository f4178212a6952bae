import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client address: the socket's, or with `trustedProxyHops` > 0 the address that many hops from
 * the right of X-Forwarded-For (the left-most entries are whatever the client chose to send).
 */
export function clientIp(c: Context, trustedProxyHops: number): string | undefined {
  if (trustedProxyHops > 0) {
    const hops = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const candidate = hops[hops.length - trustedProxyHops];
    if (candidate) return candidate;
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // app.request() in tests has no socket
  }
}
