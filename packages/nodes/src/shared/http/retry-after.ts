/**
 * Retry-After in seconds or as an HTTP date (RFC 9110 §10.2.3), as a wait in ms from `nowMs`, at
 * most `maxMs`; undefined when absent or unreadable. One reading for every caller of an outside
 * service: webhook deliveries, the AI and chat providers.
 */
export function parseRetryAfter(
  value: string | undefined,
  nowMs = Date.now(),
  maxMs = Number.POSITIVE_INFINITY,
): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - nowMs;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), maxMs);
}
