import ipaddr from 'ipaddr.js';
import type { FieldErrors } from '../../errors/errors.js';
import { firstFree, fromBig, type Net6, overlaps, sizeOf, toBig } from '../networking/ipv6-math.js';

/**
 * VPC IPv6 (dual-stack VPCs). A VPC takes one range from its region's VPC IPv6 pool (the
 * catalogue's `vpc_ipv6_pool`), never overlapping another VPC's range in the region; its subnets
 * carve theirs from it; a VPC interface on a dual-stack subnet takes /64 blocks of the subnet.
 */

/** The region capability of dual-stack VPCs, and the one the SDKs' suites look for. */
export const VPC_DUAL_STACK = 'VPC Dual Stack';
export const VPC_IPV6_STACK = 'VPC IPv6 Stack';
/** Regions that also offer VPC ranges larger than /52. */
export const VPC_IPV6_LARGE = 'VPC IPv6 Large Prefixes';

/** A VPC's prefix length when the request says `auto` or nothing. */
export const VPC_DEFAULT_PREFIX = 52;
/** The VPC prefix lengths every dual-stack region offers, and the larger ones of some. */
const VPC_PREFIXES = [52] as const;
const VPC_LARGE_PREFIXES = [48, 44] as const;
/** A subnet's prefix length: 52..62 (the console's rule); `auto` gives a /56. */
export const SUBNET_PREFIX_MIN = 52;
export const SUBNET_PREFIX_MAX = 62;
export const SUBNET_DEFAULT_PREFIX = 56;
/** An interface's SLAAC network and each of its ranges: a /64 of the subnet. */
export const INTERFACE_PREFIX = 64;

/** The prefix lengths a region offers for VPC ranges, smallest block first (as the wire lists). */
export function vpcPrefixesOf(capabilities: readonly string[]): number[] {
  if (!capabilities.includes(VPC_DUAL_STACK)) return [];
  return capabilities.includes(VPC_IPV6_LARGE)
    ? [...VPC_PREFIXES, ...VPC_LARGE_PREFIXES]
    : [...VPC_PREFIXES];
}

/** `addr/n` with the host bits zero, written canonically (`2001:db8:8500::/52`). */
export function formatNet6(n: Net6): string {
  return `${fromBig(n.base)}/${n.bits}`;
}

/** An IPv6 network `addr/n` (any spelling; host bits zero), else undefined. */
export function parseNet6(text: string): Net6 | undefined {
  if (typeof text !== 'string' || !ipaddr.IPv6.isValidCIDR(text)) return undefined;
  const [addr, bits] = ipaddr.IPv6.parseCIDR(text);
  if (addr.zoneId !== undefined) return undefined;
  const base = toBig(addr.parts);
  return base % sizeOf(bits) === 0n ? { base, bits } : undefined;
}

/** An IPv6 address (no prefix, no zone) as a number, else undefined. */
export function parseAddr6(text: string): bigint | undefined {
  if (typeof text !== 'string' || !ipaddr.IPv6.isValid(text) || text.includes('/'))
    return undefined;
  const addr = ipaddr.IPv6.parse(text);
  return addr.zoneId === undefined ? toBig(addr.parts) : undefined;
}

export const inside = (inner: Net6, outer: Net6): boolean =>
  inner.bits >= outer.bits &&
  inner.base >= outer.base &&
  inner.base + sizeOf(inner.bits) <= outer.base + sizeOf(outer.bits);

/** A requested range: a prefix length alone (`/52`, `auto`) or an explicit network. */
export type RangeRequest = { bits: number; net?: undefined } | { bits: number; net: Net6 };

/**
 * Reads a `range` of a request: `auto` (or omitted) gives `auto`, `/n` a length, `addr/n` an
 * explicit network. Returns the reason when it is none of them.
 */
export function readRange(text: unknown, autoBits: number): RangeRequest | string {
  const NOT_NET = `Must be an IPv6 network in CIDR form, a prefix length such as /${autoBits}, or auto`;
  if (text === undefined || text === null || text === 'auto') return { bits: autoBits };
  if (typeof text !== 'string') return NOT_NET;
  const m = /^\/(\d{1,3})$/.exec(text);
  if (m) {
    const bits = Number(m[1]);
    return bits <= 128 ? { bits } : NOT_NET;
  }
  if (!ipaddr.IPv6.isValidCIDR(text)) return NOT_NET;
  const net = parseNet6(text);
  if (!net) return 'Must be an IPv6 network: the bits after the prefix length must be zero';
  return { bits: net.bits, net };
}

/**
 * Checks the `ipv6` list of a VPC create in a region and returns the request (or undefined:
 * IPv4 only). At most one range; a prefix length the region offers; an explicit range inside
 * the region's pool. Overlap with other VPCs is checked when allocating (under the pool's lock).
 */
export function checkVpcIpv6(
  fe: FieldErrors,
  list: readonly { range?: string | null | undefined }[] | null | undefined,
  region: { id: string; capabilities: readonly string[] } | undefined,
  pool: Net6 | undefined,
): RangeRequest | undefined {
  if (list === null || list === undefined || list.length === 0) return undefined;
  if (list.length > 1) {
    fe.add('ipv6', 'A VPC can have at most one IPv6 range');
    return undefined;
  }
  if (!region) return undefined; // the region error is reported
  const offered = vpcPrefixesOf(region.capabilities);
  if (offered.length === 0 || !pool) {
    fe.add('ipv6', 'IPv6 VPCs are not available in this region');
    return undefined;
  }
  const r = readRange(list[0]?.range, VPC_DEFAULT_PREFIX);
  if (typeof r === 'string') {
    fe.add('ipv6[0].range', r);
    return undefined;
  }
  if (!offered.includes(r.bits)) {
    const lengths = offered.map((b) => `/${b}`).join(', ');
    fe.add('ipv6[0].range', `The prefix length must be one this region offers: ${lengths}`);
    return undefined;
  }
  if (r.net && !inside(r.net, pool)) {
    fe.add(
      'ipv6[0].range',
      `The range must be inside the region's VPC IPv6 pool ${formatNet6(pool)}`,
    );
    return undefined;
  }
  return r;
}

/** The block a request takes among `used` in `space`: explicit if free, else the lowest free one. */
export function allocate(
  space: Net6,
  req: RangeRequest,
  used: readonly Net6[],
): Net6 | 'taken' | 'full' {
  if (req.net) return used.some((u) => overlaps(u, req.net)) ? 'taken' : req.net;
  return firstFree(space, req.bits, used) ?? 'full';
}

/**
 * Checks a subnet's `ipv6` list against its VPC's range (undefined: an IPv4-only VPC). At most
 * one range; `/n` with n in 52..62 and not larger than the VPC's range, or an explicit network
 * inside it. `at(field)` names the subnet's fields. Overlap with the VPC's other subnets is
 * checked when allocating.
 */
export function checkSubnetIpv6(
  fe: FieldErrors,
  at: (field: string) => string,
  list: readonly { range?: string | null | undefined }[] | null | undefined,
  vpcRange: Net6 | undefined,
): RangeRequest | undefined {
  if (list === null || list === undefined || list.length === 0) return undefined;
  if (list.length > 1) {
    fe.add(at('ipv6'), 'A subnet can have at most one IPv6 range');
    return undefined;
  }
  if (!vpcRange) {
    fe.add(at('ipv6'), 'The VPC has no IPv6 range: its subnets cannot have one');
    return undefined;
  }
  const field = at('ipv6[0].range');
  const r = readRange(list[0]?.range, Math.max(SUBNET_DEFAULT_PREFIX, vpcRange.bits));
  if (typeof r === 'string') {
    fe.add(field, r);
    return undefined;
  }
  if (r.bits < SUBNET_PREFIX_MIN || r.bits > SUBNET_PREFIX_MAX) {
    fe.add(
      field,
      `The prefix length must be between ${SUBNET_PREFIX_MIN} and ${SUBNET_PREFIX_MAX}`,
    );
    return undefined;
  }
  if (r.bits < vpcRange.bits) {
    fe.add(field, `The range cannot be larger than the VPC's range ${formatNet6(vpcRange)}`);
    return undefined;
  }
  if (r.net && !inside(r.net, vpcRange)) {
    fe.add(field, `The range must be inside the VPC's range ${formatNet6(vpcRange)}`);
    return undefined;
  }
  return r;
}

// ---- IPv6 of VPC interfaces ----

/** A VPC interface's IPv6 as stored: its SLAAC /64s, its routed /64s, and whether it is public. */
export interface InterfaceIpv6 {
  slaac: string[];
  ranges: string[];
  is_public: boolean;
}

/** The `ipv6` object of an interface request (profile interfaces and `vpc.ipv6` of new ones). */
export interface InterfaceIpv6Request {
  slaac?: { range?: string | null | undefined }[] | null | undefined;
  ranges?: { range?: string | null | undefined }[] | null | undefined;
  is_public?: boolean | null | undefined;
}

/** At most this many SLAAC ranges and routed ranges per interface. */
export const INTERFACE_SLAAC_MAX = 1;
export const INTERFACE_RANGES_MAX = 4;

export function readInterfaceIpv6(text: string | null | undefined): InterfaceIpv6 | null {
  if (text === null || text === undefined) return null;
  try {
    const v = JSON.parse(text) as Partial<InterfaceIpv6>;
    return {
      slaac: Array.isArray(v.slaac) ? v.slaac : [],
      ranges: Array.isArray(v.ranges) ? v.ranges : [],
      is_public: v.is_public === true,
    };
  } catch {
    return null;
  }
}

export const storeInterfaceIpv6 = (v: InterfaceIpv6 | null | undefined): string | null =>
  v ? JSON.stringify(v) : null;

/** Every /64 an interface's IPv6 holds. */
export function blocksOf(v: InterfaceIpv6 | null): Net6[] {
  if (!v) return [];
  return [...v.slaac, ...v.ranges].flatMap((r) => {
    const n = parseNet6(r);
    return n ? [n] : [];
  });
}

/**
 * The SLAAC address of an instance in a /64: the network and `eui64`, the interface identifier of
 * the instance's MAC (the same EUI-64 groups as its public SLAAC address).
 */
export function slaacAddress(range: string, eui64: readonly number[]): string {
  const net = parseNet6(range);
  if (!net) return range.split('/')[0] ?? range;
  const host = eui64.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
  return fromBig(net.base + (host & (sizeOf(INTERFACE_PREFIX) - 1n)));
}

/**
 * Completes a VPC interface's IPv6 on a subnet (`subnetRange` undefined: an IPv4-only subnet).
 * `req` undefined keeps `current` (an update that does not name it) or, with nothing current,
 * gives one SLAAC /64 (`auto`), no ranges, not public: a VPC interface on a dual-stack subnet
 * has an IPv6 address unless its request says `slaac: []`. Each range is `auto`, `/64` (the lowest free /64 of the subnet) or
 * a /64 of the subnet no other interface holds (`taken`). Returns the stored value.
 */
export function completeInterfaceIpv6(
  fe: FieldErrors,
  at: (field: string) => string,
  req: InterfaceIpv6Request | null | undefined,
  current: InterfaceIpv6 | null | undefined,
  subnetRange: Net6 | undefined,
  taken: Net6[],
): InterfaceIpv6 | null {
  if (!subnetRange) {
    const asks =
      req &&
      ((req.slaac?.length ?? 0) > 0 || (req.ranges?.length ?? 0) > 0 || req.is_public === true);
    if (asks) fe.add(at('ipv6'), 'The subnet has no IPv6 range: the interface cannot have IPv6');
    return null;
  }
  if (req === undefined || req === null) {
    if (current) {
      taken.push(...blocksOf(current));
      return current;
    }
    req = { slaac: [{ range: 'auto' }] };
  }
  // `slaac` omitted keeps the current ones, or gives one; `[]` asks for none.
  const slaacList =
    req.slaac ?? (current ? current.slaac.map((range) => ({ range })) : [{ range: 'auto' }]);
  const rangeList = req.ranges ?? (current ? current.ranges.map((range) => ({ range })) : []);
  if (slaacList.length > INTERFACE_SLAAC_MAX)
    fe.add(at('ipv6.slaac'), `At most ${INTERFACE_SLAAC_MAX} SLAAC range is allowed`);
  if (rangeList.length > INTERFACE_RANGES_MAX)
    fe.add(at('ipv6.ranges'), `At most ${INTERFACE_RANGES_MAX} IPv6 ranges are allowed`);
  const pick = (field: string, text: string | null | undefined): string | undefined => {
    const r = readRange(text, INTERFACE_PREFIX);
    if (typeof r === 'string') {
      fe.add(field, r);
      return undefined;
    }
    if (r.bits !== INTERFACE_PREFIX) {
      fe.add(field, 'The range must be a /64');
      return undefined;
    }
    if (r.net && !inside(r.net, subnetRange)) {
      fe.add(field, `The range must be inside the subnet's range ${formatNet6(subnetRange)}`);
      return undefined;
    }
    const got = allocate(subnetRange, r, taken);
    if (got === 'taken') {
      fe.add(field, 'The range is already in use in the subnet');
      return undefined;
    }
    if (got === 'full') {
      fe.add(field, 'The subnet has no free /64 left');
      return undefined;
    }
    taken.push(got);
    return formatNet6(got);
  };
  const slaac = slaacList.flatMap((s, k) => {
    const got = pick(at(`ipv6.slaac.${k}.range`), s?.range);
    return got ? [got] : [];
  });
  const ranges = rangeList.flatMap((s, k) => {
    const got = pick(at(`ipv6.ranges.${k}.range`), s?.range);
    return got ? [got] : [];
  });
  return { slaac, ranges, is_public: req.is_public ?? current?.is_public ?? false };
}

/** An interface's `ipv6` as answered (profile interfaces and `vpc.ipv6` of new ones). */
export function apiInterfaceIpv6(
  v: InterfaceIpv6 | null,
  eui64: readonly number[],
): {
  slaac: { range: string; address: string }[];
  ranges: { range: string }[];
  is_public: boolean;
} | null {
  if (!v) return null;
  return {
    slaac: v.slaac.map((range) => ({ range, address: slaacAddress(range, eui64) })),
    ranges: v.ranges.map((range) => ({ range })),
    is_public: v.is_public,
  };
}
