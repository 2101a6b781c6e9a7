import ipaddr from 'ipaddr.js';
import { ipv4ToNum, maskOf, numToIpv4 } from '../../lib/ip.js';

/**
 * VPC and subnet labels: ASCII letters, digits and hyphens, no `--`, 1..64 characters (the
 * spec's rule). A label with other characters gets the real service's words (recorded on VPC and
 * subnet creates and updates, and matched by the clients' suites), which name underscores though
 * the rule takes hyphens.
 */
export const LABEL_CHARS = 'Must only use ASCII letters, numbers, and underscores';
export const LABEL_MAX = 64;
export const DESCRIPTION_MAX = 255;

export function labelProblem(label: string): string | undefined {
  if (label.length < 1 || label.length > LABEL_MAX) return 'Length must be 1-64 characters';
  if (!/^[a-zA-Z0-9-]+$/.test(label)) return LABEL_CHARS;
  if (label.includes('--')) return 'Label must not include two dashes in a row';
  return undefined;
}

/** A parsed IPv4 range: first address number, size and prefix. */
export interface Range4 {
  cidr: string;
  start: number;
  end: number;
  prefix: number;
}

/** The RFC 1918 private ranges. */
const RFC1918: readonly [string, number][] = [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
];
/** Reserved for the instances' private addresses: no subnet may overlap it. */
export const PRIVATE_POOL = '192.168.128.0/17';

/**
 * What `GET /vpcs/default-ranges` reports, derived from the rules `subnetRange` enforces: the
 * RFC 1918 ranges a subnet may be carved from (192.168.0.0/16 less the private pool), in the
 * order the real service lists them, and the ranges refused inside them.
 */
export const DEFAULT_IPV4_RANGES: readonly string[] = [
  '10.0.0.0/8',
  '192.168.0.0/17',
  '172.16.0.0/12',
];
export const FORBIDDEN_IPV4_RANGES: readonly string[] = [PRIVATE_POOL];

/** A canonical IPv4 CIDR (host bits zero, dotted-quad without leading zeros), else undefined. */
export function parseRange(text: string): Range4 | undefined {
  if (typeof text !== 'string' || !ipaddr.IPv4.isValidCIDR(text)) return undefined;
  const [addr, prefixText] = text.split('/') as [string, string];
  if (!ipaddr.IPv4.isValidFourPartDecimal(addr) || !/^(0|[1-9]\d?)$/.test(prefixText))
    return undefined;
  const [ip, prefix] = ipaddr.IPv4.parseCIDR(text);
  const network = ipaddr.IPv4.networkAddressFromCIDR(text);
  if (network.toString() !== ip.toString()) return undefined;
  const start = ipv4ToNum(ip.toString());
  return { cidr: `${ip.toString()}/${prefix}`, start, end: start + 2 ** (32 - prefix) - 1, prefix };
}

export const overlaps = (a: Pick<Range4, 'start' | 'end'>, b: Pick<Range4, 'start' | 'end'>) =>
  a.start <= b.end && b.start <= a.end;

/** Whether `inner` lies wholly inside `outer`. */
export const within = (
  inner: Pick<Range4, 'start' | 'end'>,
  outer: Pick<Range4, 'start' | 'end'>,
) => inner.start >= outer.start && inner.end <= outer.end;

/** A malformed IPv4 range (the real service's words, as the clients' suites match them). */
export const NOT_A_NETWORK = 'Must be an IPv4 network in canonical CIDR form, such as 10.0.1.0/24';

/** The default ranges as parsed ranges: a VPC without IPv4 ranges of its own has these. */
export const DEFAULT_RANGES: readonly Range4[] = DEFAULT_IPV4_RANGES.map(
  (t) => parseRange(t) as Range4,
);

/**
 * A VPC's own IPv4 range (regions with `Custom VPC IPv4 Ranges`): a canonical CIDR with a prefix
 * of at most 29 (room for a subnet) inside one of the default ranges. Returns the range, or the
 * reason it is refused.
 */
export function vpcRange(text: unknown): Range4 | string {
  const r = typeof text === 'string' ? parseRange(text) : undefined;
  if (!r) return NOT_A_NETWORK;
  if (r.prefix > 29) return 'The prefix length must be at most 29';
  if (!DEFAULT_RANGES.some((d) => within(r, d)))
    return `The range must lie inside one of the default ranges (${DEFAULT_IPV4_RANGES.join(', ')})`;
  return r;
}

/**
 * The subnet `ipv4` rules: a canonical CIDR inside RFC 1918, prefix 1..29, not overlapping
 * 192.168.128.0/17, and inside one of the VPC's own IPv4 ranges when it has some. Returns the
 * range, or the reason it is refused.
 */
export function subnetRange(text: string, vpcRanges?: readonly Range4[]): Range4 | string {
  const r = parseRange(text);
  if (!r) return NOT_A_NETWORK;
  if (r.prefix < 1 || r.prefix > 29) return 'The prefix length must be between 1 and 29';
  const ip = ipaddr.IPv4.parse(numToIpv4(r.start));
  const inPrivate = RFC1918.some(
    ([base, bits]) => r.prefix >= bits && ip.match(ipaddr.IPv4.parse(base), bits),
  );
  if (!inPrivate) return 'ipv4 must be inside an RFC 1918 private range';
  if (overlaps(r, parseRange(PRIVATE_POOL) as Range4))
    return `ipv4 must not overlap ${PRIVATE_POOL}`;
  if (vpcRanges && !vpcRanges.some((v) => within(r, v)))
    return `ipv4 must lie inside one of the VPC\u2019s IPv4 ranges (${vpcRanges.map((v) => v.cidr).join(', ')})`;
  return r;
}

/** Addresses an interface may hold: not the first two nor the last two of the subnet. */
export function usableBounds(subnet: Pick<Range4, 'start' | 'end'>): {
  first: number;
  last: number;
} {
  return { first: subnet.start + 2, last: subnet.end - 2 };
}

/** The subnet's gateway (its first host address) and mask. */
export function subnetGateway(subnet: Pick<Range4, 'start'>): string {
  return numToIpv4(subnet.start + 1);
}
export { maskOf };
