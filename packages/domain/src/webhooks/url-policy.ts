import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isBlockedAddress, isBlockedHostname, parseAllowlist } from '../outbound-http/address-policy';
import type { LookupAll } from '../outbound-http/client';
import { checkOutboundUrl } from '../outbound-http/request-policy';

const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true });

/** A save-time answer must not hang on a slow resolver; the delivery-time guard is the real wall. */
const LOOKUP_TIMEOUT_MS = 3000;

const PRIVATE_TARGET =
  'URL points to a private, local or reserved address; webhooks may only call public hosts (SSRF_ALLOWLIST opens ranges)';

/**
 * Save-time SSRF check of a webhook URL (DESIGN §10): http(s) only, and neither the host nor any
 * address it resolves to may be private unless SSRF_ALLOWLIST opens it. A host that does not resolve
 * now is accepted: DNS may change, and the outbound client checks every address again at delivery.
 * Returns a message for the `url` field, or undefined when the URL is acceptable.
 */
export async function checkWebhookUrl(
  url: string,
  allowlist: readonly string[],
  lookup: LookupAll = systemLookup,
): Promise<string | undefined> {
  const problem = checkOutboundUrl(url);
  if (problem) return problem;
  const { hostname } = new URL(url);
  if (isBlockedHostname(hostname)) return PRIVATE_TARGET;
  const ranges = parseAllowlist(allowlist.join(','));
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) !== 0) return isBlockedAddress(host, ranges) ? PRIVATE_TARGET : undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), LOOKUP_TIMEOUT_MS);
  });
  const records = await Promise.race([
    lookup(host.endsWith('.') ? host.slice(0, -1) : host).catch(() => null),
    timeout,
  ]).finally(() => clearTimeout(timer));
  if (records?.some((record) => isBlockedAddress(record.address, ranges))) return PRIVATE_TARGET;
  return undefined;
}
