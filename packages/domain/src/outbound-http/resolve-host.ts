import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isBlockedAddress, isBlockedHostname, parseAllowlist } from './address-policy';
import type { LookupAll } from './client';
import { OutboundHttpError } from './errors';

const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true });

/**
 * The address to connect to for a non-HTTP connection to a tenant-given host (SMTP): resolved once,
 * every address checked like the HTTP client does (DESIGN §10), and the caller connects to the one
 * returned, so DNS cannot change between the check and the connection.
 */
export async function resolveAllowedHost(
  host: string,
  allowlist: readonly string[],
  lookup: LookupAll = systemLookup,
): Promise<string> {
  const refused = () =>
    new OutboundHttpError(
      'ssrf_blocked',
      `${host} is a private, local or reserved address (SSRF_ALLOWLIST opens ranges)`,
    );
  if (isBlockedHostname(host)) throw refused();
  const ranges = parseAllowlist(allowlist.join(','));
  const addresses = isIP(host) !== 0 ? [{ address: host }] : await lookup(host).catch(() => []);
  if (addresses.length === 0) throw new OutboundHttpError('network_error', `${host} does not resolve`);
  if (addresses.some((a) => isBlockedAddress(a.address, ranges))) throw refused();
  return (addresses[0] as { address: string }).address;
}
