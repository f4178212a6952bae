import { BlockList } from 'node:net';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isBlockedAddress, isBlockedHostname, parseAllowlist } from './address-policy';

describe('isBlockedAddress', () => {
  it.each([
    // IPv4 ranges of DESIGN §10 and security.md §5
    ['0.0.0.0', true],
    ['0.255.255.255', true],
    ['10.0.0.1', true],
    ['10.255.255.255', true],
    ['100.64.0.1', true],
    ['100.127.255.255', true],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['169.254.169.254', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['192.0.0.8', true],
    ['192.0.2.1', true],
    ['198.18.0.1', true],
    ['198.51.100.7', true],
    ['203.0.113.9', true],
    ['224.0.0.1', true],
    ['239.255.255.250', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    // just outside the ranges
    ['1.1.1.1', false],
    ['8.8.8.8', false],
    ['9.255.255.255', false],
    ['11.0.0.0', false],
    ['100.63.255.255', false],
    ['100.128.0.0', false],
    ['172.15.255.255', false],
    ['172.32.0.0', false],
    ['169.253.255.255', false],
    ['192.167.255.255', false],
    ['223.255.255.255', false],
    // IPv6
    ['::', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::7f00:1', true], // deprecated IPv4-compatible form of 127.0.0.1
    ['fc00::1', true],
    ['fd00:ec2::254', true], // AWS IMDS over IPv6
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['fec0::1', true],
    ['ff02::1', true],
    ['2001:db8::1', true],
    ['100::1', true],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true], // Teredo
    ['2606:4700:4700::1111', false],
    ['2a00:1450:4001:80b::200e', false],
    // IPv4-mapped: judged by the IPv4 inside
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:a9fe:a9fe', true],
    ['::ffff:169.254.169.254', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['::ffff:0:7f00:1', true], // IPv4-translated (RFC 6145)
    // NAT64 and 6to4 embed an IPv4; refused whatever it is
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::127.0.0.1', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['64:ff9b::808:808', true],
    ['64:ff9b:1::7f00:1', true],
    ['2002:7f00:1::', true],
    ['2002:a9fe:a9fe::1', true],
    ['2002:808:808::1', true],
    // not a plain IP: fail closed
    ['', true],
    ['localhost', true],
    ['0177.0.0.1', true],
    ['127.1', true],
    ['2130706433', true],
    ['0x7f.0.0.1', true],
    ['1.2.3.4.5', true],
    ['[::1]', true],
  ])('%s -> blocked %s', (ip, blocked) => {
    expect(isBlockedAddress(ip, [])).toBe(blocked);
  });

  it('lets an allowlisted CIDR through, and only that CIDR', () => {
    const allowlist = ['127.0.0.0/8'];
    expect(isBlockedAddress('127.0.0.1', allowlist)).toBe(false);
    expect(isBlockedAddress('127.10.20.30', allowlist)).toBe(false);
    expect(isBlockedAddress('::ffff:127.0.0.1', allowlist)).toBe(false);
    expect(isBlockedAddress('::ffff:7f00:1', allowlist)).toBe(false);
    expect(isBlockedAddress('169.254.169.254', allowlist)).toBe(true);
    expect(isBlockedAddress('10.0.0.1', allowlist)).toBe(true);
    expect(isBlockedAddress('::1', allowlist)).toBe(true);
    expect(isBlockedAddress('0.0.0.0', allowlist)).toBe(true);
    // NAT64 / 6to4 reach a gateway, not this host: an IPv4 allowlist entry does not open them.
    expect(isBlockedAddress('64:ff9b::7f00:1', allowlist)).toBe(true);
    expect(isBlockedAddress('2002:7f00:1::', allowlist)).toBe(true);
    expect(isBlockedAddress('8.8.8.8', allowlist)).toBe(false);
  });

  it('allows IPv6 and single-address allowlist entries', () => {
    expect(isBlockedAddress('fd12:3456::1', ['fd12:3456::/32'])).toBe(false);
    expect(isBlockedAddress('fd12:3457::1', ['fd12:3456::/32'])).toBe(true);
    expect(isBlockedAddress('10.1.2.3', ['10.1.2.3/32'])).toBe(false);
    expect(isBlockedAddress('10.1.2.4', ['10.1.2.3/32'])).toBe(true);
    expect(isBlockedAddress('::1', ['::1/128'])).toBe(false);
  });
});

describe('parseAllowlist', () => {
  it('splits, trims and normalises CIDRs', () => {
    expect(parseAllowlist('10.0.0.0/8, 127.0.0.0/8')).toEqual(['10.0.0.0/8', '127.0.0.0/8']);
    expect(parseAllowlist(' fd00:0000::/8 ,,192.168.1.10 ')).toEqual(['fd00::/8', '192.168.1.10/32']);
    expect(parseAllowlist('')).toEqual([]);
    expect(parseAllowlist(' , ')).toEqual([]);
  });

  it.each([
    'localhost',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.0/-1',
    '10.0.0.0/ 8',
    '0177.0.0.0/8',
    '127.1/8',
    '10.0.0.0/8; rm -rf',
    'fe80::/10%eth0',
  ])('refuses %j', (value) => {
    expect(() => parseAllowlist(`127.0.0.0/8,${value}`)).toThrow(/not a CIDR/);
  });
});

describe('isBlockedHostname', () => {
  it.each([
    ['metadata.google.internal', true],
    ['METADATA.google.internal.', true],
    ['metadata', true],
    ['api.example.com', false],
  ])('%s -> %s', (hostname, blocked) => {
    expect(isBlockedHostname(hostname)).toBe(blocked);
  });
});

/**
 * An independent oracle: Node's own BlockList, fed from the IANA special-purpose registry, with no
 * code shared with the policy.
 */
const ORACLE_IPV4_RANGES: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24], // AS112-v4 (anycast sink)
  ['192.52.193.0', 24], // AMT (anycast)
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16],
  ['192.175.48.0', 24], // AS112 direct delegation
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const oracle = new BlockList();
for (const [network, prefix] of ORACLE_IPV4_RANGES) oracle.addSubnet(network, prefix, 'ipv4');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');

const toDotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const toNumber = (ip: string) => ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);

/** Uniform addresses, plus addresses within two of every range edge, where off-by-one bugs live. */
const ipv4 = fc.oneof(
  fc.ipV4(),
  fc
    .tuple(
      fc.constantFrom(
        ...ORACLE_IPV4_RANGES.flatMap(([network, prefix]) => {
          const start = toNumber(network);
          return [start, start + 2 ** (32 - prefix)];
        }),
      ),
      fc.integer({ min: -2, max: 2 }),
    )
    .map(([edge, delta]) => toDotted(Math.min(Math.max(edge + delta, 0), 2 ** 32 - 1))),
);

describe('isBlockedAddress agrees with a net.BlockList oracle', () => {
  it('for random IPv4 addresses', () => {
    fc.assert(
      fc.property(ipv4, (ip) => isBlockedAddress(ip, []) === oracle.check(ip, 'ipv4')),
      { numRuns: 5000 },
    );
  });

  it('for their IPv4-mapped IPv6 forms, dotted and hex', () => {
    fc.assert(
      fc.property(ipv4, (ip) => {
        const expected = oracle.check(ip, 'ipv4');
        const hex = ipaddr.IPv4.parse(ip).toIPv4MappedAddress().toString();
        return isBlockedAddress(`::ffff:${ip}`, []) === expected && isBlockedAddress(hex, []) === expected;
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses every NAT64 and 6to4 form', () => {
    fc.assert(
      fc.property(ipv4, (ip) => {
        const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
        const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
        return (
          isBlockedAddress(`64:ff9b::${ip}`, []) && isBlockedAddress(`2002:${hex(a, b)}:${hex(c, d)}::1`, [])
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('with 127.0.0.0/8 allowlisted', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          ipv4,
          fc.ipV4().map((ip) => `127.${ip.split('.').slice(1).join('.')}`),
        ),
        (ip) =>
          isBlockedAddress(ip, ['127.0.0.0/8']) === (oracle.check(ip, 'ipv4') && !loopback.check(ip, 'ipv4')),
      ),
      { numRuns: 2000 },
    );
  });
});
