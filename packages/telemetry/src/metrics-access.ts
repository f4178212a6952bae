import { timingSafeEqual } from 'node:crypto';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

export interface MetricsCaller {
  /** The caller's address, when it can be trusted (no proxy in front); undefined otherwise. */
  address: string | undefined;
  /** The Authorization header as sent. */
  authorization: string | undefined;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who may read /metrics: a caller on this machine (a Prometheus or agent beside the process), or
 * whoever presents METRICS_TOKEN as a bearer token. Metrics name routes, node types and volumes,
 * which tell an outsider how the installation is used, so they are not public.
 *
 * @example
 * mayReadMetrics({ address: '127.0.0.1', authorization: undefined }, undefined); // true
 * mayReadMetrics({ address: '10.0.0.7', authorization: 'Bearer s3cret' }, 's3cret'); // true
 */
export function mayReadMetrics(caller: MetricsCaller, token: string | undefined): boolean {
  const bearer = caller.authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  if (token && bearer) return sameSecret(bearer, token);
  return caller.address !== undefined && LOOPBACK.test(caller.address);
}
