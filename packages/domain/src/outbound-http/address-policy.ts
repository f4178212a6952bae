import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/**
 * Ranges refused on top of "everything ipaddr.js does not call unicast". The explicit list is the
 * contract (DESIGN §10, security.md §5); the range() rule catches what the list forgets, such as
 * new IANA special-purpose blocks. IPv4-mapped addresses (::ffff:a.b.c.d) are judged by their IPv4.
 */
const BLOCKED_RANGES: readonly string[] = [
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local host on Linux
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, cloud metadata 169.254.169.254
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, includes 255.255.255.255
  '::/96', // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d (ipaddr.js calls it unicast)
  '::ffff:0:0:0/96', // IPv4-translated (RFC 6145)
  '64:ff9b::/96', // NAT64 embeds an IPv4 (RFC 6052)
  '64:ff9b:1::/48', // local-use NAT64 (RFC 8215)
  '100::/64', // discard
  '2001::/32', // Teredo embeds an IPv4
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4 embeds an IPv4
  'fc00::/7', // unique local, includes AWS IMDS fd00:ec2::254
  'fe80::/10', // link-local
  'fec0::/10', // deprecated site-local
  'ff00::/8', // multicast
];

const BLOCKED_CIDRS: readonly Cidr[] = BLOCKED_RANGES.map((range) => ipaddr.parseCIDR(range));

function inCidr(address: Address, [network, bits]: Cidr): boolean {
  // match() throws when the kinds differ; an IPv4 rule never matches an IPv6 address and vice versa.
  return address.kind() === network.kind() && address.match(network, bits);
}

/** An IP in the strict textual forms Node itself accepts; ambiguous forms (0177.0.0.1, 127.1) are refused. */
function parseStrictIp(ip: string): Address | undefined {
  if (isIP(ip) === 0) return undefined;
  try {
    return ipaddr.parse(ip);
  } catch {
    return undefined;
  }
}

function parseCidr(value: string): Cidr | undefined {
  const slash = value.indexOf('/');
  const ip = slash === -1 ? value : value.slice(0, slash);
  const address = parseStrictIp(ip);
  if (!address || ('zoneId' in address && address.zoneId)) return undefined;
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  if (slash === -1) return [address, maxBits];
  const bitsText = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= maxBits ? [address, bits] : undefined;
}

/**
 * Parses `SSRF_ALLOWLIST`: comma-separated CIDRs (a bare IP means that one address). Throws on
 * anything that is not a CIDR, so a typo fails at start-up instead of silently opening nothing.
 *
 * @example
 * parseAllowlist('10.0.0.0/8, 127.0.0.0/8'); // ['10.0.0.0/8', '127.0.0.0/8']
 */
export function parseAllowlist(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.map((entry) => {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`SSRF allowlist entry is not a CIDR: ${JSON.stringify(entry)}`);
    return `${cidr[0].toString()}/${cidr[1]}`;
  });
}

function isAllowlisted(candidates: readonly Address[], allowlist: readonly string[]): boolean {
  return allowlist.some((entry) => {
    const cidr = parseCidr(entry);
    return cidr !== undefined && candidates.some((candidate) => inCidr(candidate, cidr));
  });
}

function isBlockedRange(address: Address): boolean {
  return address.range() !== 'unicast' || BLOCKED_CIDRS.some((cidr) => inCidr(address, cidr));
}

/**
 * True when an outbound connection to `ip` must be refused: a private, loopback, link-local,
 * shared, reserved, multicast or IPv4-embedding address (see BLOCKED_RANGES), or anything that is
 * not a plain IP, unless `ip` lies inside one of the `allowlist` CIDRs.
 *
 * @example
 * isBlockedAddress('169.254.169.254', []); // true
 * isBlockedAddress('::ffff:127.0.0.1', ['127.0.0.0/8']); // false
 */
export function isBlockedAddress(ip: string, allowlist: readonly string[]): boolean {
  const parsed = parseStrictIp(ip);
  if (!parsed) return true;
  // ::ffff:a.b.c.d is the IPv4 host a.b.c.d on a dual-stack socket: judge (and allowlist) it as that.
  const effective =
    parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
  if (!isBlockedRange(effective)) return false;
  return !isAllowlisted([parsed, effective], allowlist);
}

/** Host names refused before any DNS lookup: cloud metadata services (a belt; their IPs are blocked too). */
const BLOCKED_HOSTNAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** `hostname` is a URL's hostname (lower-case, IPv6 in brackets); a trailing dot is ignored. */
export function isBlockedHostname(hostname: string): boolean {
  return BLOCKED_HOSTNAMES.has(hostname.toLowerCase().replace(/\.$/, ''));
}
