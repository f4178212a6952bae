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

/** Headers a reverse proxy adds: a request carrying one came through a proxy, not from a local caller. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/**
 * Whether the request says it was forwarded. A proxy on the same host connects from loopback on
 * behalf of anyone, so such a request is never taken as a local caller's.
 */
export function cameThroughProxy(c: Context): boolean {
  return PROXY_HEADERS.some((name) => c.req.header(name) !== undefined);
}
