import fs from 'node:fs';
import { sql } from 'kysely';
import { ConfigError } from '../../config/config.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import {
  type Cidr4,
  formatIpv6,
  maskOf,
  numToIpv4,
  parseCidr4,
  parseIpv6,
  parseIpv6Net64,
} from '../../lib/ip.js';
import { type Net6, rangeSpaceOf } from './ipv6-math.js';
import type { IpKind } from './networking.table.js';

export interface RegionPools {
  /** Public IPv4 CIDRs (/24 or larger); every /24 in them keeps .0, .1 (gateway) and .255. */
  public: string[];
  /** The private IPv4 range (192.168.128.0/17 by default; may repeat across regions). */
  private: string;
  /** The region's /64 from which each instance's SLAAC address is derived. */
  ipv6: string;
  /** Where IPv6 ranges (/56, /64) are carved from (/56 or larger); none: no ranges here. */
  ipv6_ranges?: string;
}

export type PoolConfig = Record<string, RegionPools>;

/** The shipped pools: benchmarking (198.18.0.0/15) and documentation (2001:db8::/32) ranges only. */
export function defaultPools(): PoolConfig {
  return JSON.parse(
    fs.readFileSync(new URL('./data/ip-pools.json', import.meta.url), 'utf8'),
  ) as PoolConfig;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a pool configuration (any parsed JSON); returns the problems found. Public ranges may not
 * overlap each other or any private range, so an address is never handed out twice; the private
 * range may repeat across regions, as private networks are per region.
 */
export function poolProblems(pools: unknown): string[] {
  if (!isRecord(pools)) return ['the file must hold a JSON object of regions'];
  const out: string[] = [];
  const publics: { region: string; text: string; cidr: Cidr4 }[] = [];
  const privates: { region: string; text: string; cidr: Cidr4 }[] = [];
  const nets = new Map<string, string>();
  for (const [region, p] of Object.entries(pools)) {
    if (!isRecord(p)) {
      out.push(`${region}: must be an object with public, private and ipv6`);
      continue;
    }
    if (!Array.isArray(p.public) || p.public.length === 0)
      out.push(`${region}: public needs at least one CIDR`);
    for (const c of Array.isArray(p.public) ? p.public : []) {
      const cidr = typeof c === 'string' ? parseCidr4(c) : undefined;
      if (!cidr || cidr.prefix > 24)
        out.push(`${region}: ${String(c)} is not an IPv4 CIDR of /24 or larger`);
      else publics.push({ region, text: c as string, cidr });
    }
    const priv = typeof p.private === 'string' ? parseCidr4(p.private) : undefined;
    if (!priv || priv.prefix > 30)
      out.push(`${region}: private must be an IPv4 CIDR of /30 or larger`);
    else privates.push({ region, text: p.private as string, cidr: priv });
    const net = typeof p.ipv6 === 'string' ? parseIpv6Net64(p.ipv6) : undefined;
    const spaceOk = typeof p.ipv6_ranges === 'string' && rangeSpaceOf(p.ipv6_ranges) !== undefined;
    if (p.ipv6_ranges !== undefined && !spaceOk)
      out.push(`${region}: ipv6_ranges must be an IPv6 network of /56 or larger`);
    if (!net) out.push(`${region}: ipv6 must be a /64 network such as "2001:db8:0:1::/64"`);
    else {
      const key = formatIpv6([...net, 0, 0, 0, 0]);
      const other = nets.get(key);
      if (other !== undefined)
        out.push(`${region}: ipv6 ${String(p.ipv6)} is also the pool of ${other}`);
      nets.set(key, region);
    }
  }
  const overlaps = (a: Cidr4, b: Cidr4) => a.base < b.base + b.size && b.base < a.base + a.size;
  for (let i = 0; i < publics.length; i++) {
    const a = publics[i] as (typeof publics)[number];
    for (const b of publics.slice(i + 1)) {
      if (overlaps(a.cidr, b.cidr))
        out.push(`${a.region}: ${a.text} overlaps ${b.text} of ${b.region}`);
    }
    for (const b of privates) {
      if (overlaps(a.cidr, b.cidr))
        out.push(`${a.region}: ${a.text} overlaps the private range of ${b.region}`);
    }
  }
  return out;
}

export interface AllocatedIp {
  address: string;
  address_num: number;
  prefix: number;
  gateway: string | null;
  subnet_mask: string;
}

/** Whether an address may be handed out: not .0 or .255 of its /24, nor .1 (gateway) when public. */
const usable = (kind: IpKind, n: number) => {
  const last = n % 256;
  return last !== 0 && last !== 255 && (kind === 'private' || last !== 1);
};

const SLAAC_MASK = 'ffff:ffff:ffff:ffff::';

/**
 * Addresses per region from configured pools. Allocation locks the (region, kind) row of
 * `ip_allocation_locks`, so concurrent creates on PostgreSQL serialise there (SQLite has one
 * writer anyway); the unique (region, address) constraint is the backstop.
 */
export class IpAllocator {
  constructor(private readonly pools: PoolConfig) {}

  hasRegion(region: string): boolean {
    return Object.hasOwn(this.pools, region);
  }

  /** Regions with pools, in configuration order. */
  regions(): string[] {
    return Object.keys(this.pools);
  }

  /** The region's SLAAC /64 network address (canonical, no prefix). */
  slaacNet(region: string): string {
    return formatIpv6([...this.net64(region), 0, 0, 0, 0]);
  }

  /** The network IPv6 ranges of the region are carved from, if it has one. */
  rangeSpace(region: string): Net6 | undefined {
    const p = this.hasRegion(region) ? this.pools[region] : undefined;
    return p?.ipv6_ranges === undefined ? undefined : rangeSpaceOf(p.ipv6_ranges);
  }

  private ranges(region: string, kind: IpKind): Cidr4[] {
    const p = this.hasRegion(region) ? this.pools[region] : undefined;
    if (!p) return [];
    const list = kind === 'public' ? p.public : [p.private];
    return list.map((c) => parseCidr4(c)).filter((c): c is Cidr4 => c !== undefined);
  }

  private describe(kind: IpKind, n: number, range: Cidr4): AllocatedIp {
    const address = numToIpv4(n);
    if (kind === 'public') {
      const block = n - (n % 256);
      return {
        address,
        address_num: n,
        prefix: 24,
        gateway: numToIpv4(block + 1),
        subnet_mask: maskOf(24),
      };
    }
    return {
      address,
      address_num: n,
      prefix: range.prefix,
      gateway: null,
      subnet_mask: maskOf(range.prefix),
    };
  }

  /**
   * The lowest free address of the pool (ranges in the order configured), so freed addresses
   * are reused. The caller inserts it in the same transaction, which holds the pool's lock.
   * Two queries: used addresses per /24, then the used addresses of the first block with room.
   */
  async next(db: Database, region: string, kind: IpKind): Promise<AllocatedIp> {
    db.assertTransaction();
    const ranges = this.ranges(region, kind);
    const exhausted = () =>
      errors.reason(`No more ${kind} IPv4 addresses are available in ${region}.`, 'pool_exhausted');
    if (ranges.length === 0) throw exhausted();
    await db.db
      .insertInto('ip_allocation_locks')
      .values({ region, kind })
      .onConflict((oc) => oc.columns(['region', 'kind']).doNothing())
      .execute();
    await db
      .forUpdate(
        db.db
          .selectFrom('ip_allocation_locks')
          .selectAll()
          .where('region', '=', region)
          .where('kind', '=', kind),
      )
      .execute();

    const lo = Math.min(...ranges.map((r) => r.base));
    const hi = Math.max(...ranges.map((r) => r.base + r.size));
    const perBlock = await db.db
      .selectFrom('ip_addresses')
      .select([sql<number>`address_num / 256`.as('blk'), sql<number>`count(*)`.as('n')])
      .where('region', '=', region)
      .where('address_num', '>=', lo)
      .where('address_num', '<', hi)
      .groupBy(sql`address_num / 256`)
      .execute();
    const used = new Map(perBlock.map((r) => [Number(r.blk), Number(r.n)]));

    for (const range of ranges) {
      const end = range.base + range.size;
      for (let blk = Math.floor(range.base / 256); blk * 256 < end; blk++) {
        const from = Math.max(range.base, blk * 256);
        const to = Math.min(end, (blk + 1) * 256);
        let room = 0;
        for (let n = from; n < to; n++) if (usable(kind, n)) room++;
        if ((used.get(blk) ?? 0) >= room) continue;
        const rows = await db.db
          .selectFrom('ip_addresses')
          .select('address_num')
          .where('region', '=', region)
          .where('address_num', '>=', from)
          .where('address_num', '<', to)
          .execute();
        const taken = new Set(rows.map((r) => Number(r.address_num)));
        for (let n = from; n < to; n++) {
          if (usable(kind, n) && !taken.has(n)) return this.describe(kind, n, range);
        }
      }
    }
    throw exhausted();
  }

  private net64(region: string): number[] {
    const p = this.hasRegion(region) ? this.pools[region] : undefined;
    const net = p ? parseIpv6Net64(p.ipv6) : undefined;
    if (!net)
      throw errors.reason(`No IPv6 addresses are available in ${region}.`, 'pool_exhausted');
    return net;
  }

  /** The instance's SLAAC address (the region's /64 and an EUI-64 of its MAC), canonical text. */
  slaac(region: string, instanceId: number): string {
    return formatIpv6([...this.net64(region), ...eui64(instanceId)]);
  }

  /**
   * The IPv6 address of a service that is not an instance (a NodeBalancer): the region's /64 and
   * the interface id `0:1:HHHH:LLLL` of its id, which no instance's EUI-64 address can take.
   */
  serviceIpv6(region: string, id: number): string {
    return formatIpv6([...this.net64(region), 0, 1, Math.floor(id / 65536) & 0xffff, id & 0xffff]);
  }

  /** The instance's link-local address. */
  linkLocal(instanceId: number): string {
    return formatIpv6([0xfe80, 0, 0, 0, ...eui64(instanceId)]);
  }

  /** The instance a SLAAC or link-local address was derived from, if it has that form. */
  instanceIdOf(address: string): number | undefined {
    const g = parseIpv6(address);
    if (!g) return undefined;
    const [g4, g5, g6, g7] = g.slice(4) as [number, number, number, number];
    if (g4 !== 0xf03c || (g5 & 0xff) !== 0xff || g6 >> 8 !== 0xfe) return undefined;
    const high = (g5 >> 8) ^ 0x91;
    return high * 2 ** 24 + (g6 & 0xff) * 65536 + g7;
  }

  /** Gateway, mask and prefix of the instance's IPv6 addresses. */
  ipv6Gateway(): string {
    return 'fe80::1';
  }

  ipv6Mask(): string {
    return SLAAC_MASK;
  }
}

/**
 * The interface id of the MAC f2:3c:HH:XX:XX:XX: XX:XX:XX the low 24 bits of the id and HH 0x91
 * xor its high 8 bits (so every id up to 2^32 gets its own address), as the EUI-64 groups
 * `f03c:HHff:feXX:XXXX`.
 */
export function eui64(id: number): number[] {
  const high = Math.floor(id / 2 ** 24) & 255;
  return [0xf03c, ((0x91 ^ high) << 8) | 0xff, 0xfe00 | ((id >>> 16) & 255), id & 0xffff];
}

/** The default reverse DNS name of a public IPv4 address. */
export function defaultRdns(address: string): string {
  return `${address.replace(/\./g, '-')}.ip.computeusercontent.com`;
}

/**
 * The pools in force: the file named by STRATUS_IP_POOLS, else the shipped defaults. A file
 * replaces the defaults entirely; a region it does not name has no addresses (creates there
 * answer 400).
 */
export function loadPools(file: string | undefined, knownRegions: readonly string[]): PoolConfig {
  if (!file) return defaultPools();
  let pools: unknown;
  try {
    pools = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(
      'STRATUS_IP_POOLS',
      `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const problems = poolProblems(pools);
  if (isRecord(pools)) {
    for (const r of Object.keys(pools))
      if (!knownRegions.includes(r)) problems.push(`${r}: not a region of the catalogue`);
  }
  if (problems.length > 0) throw new ConfigError('STRATUS_IP_POOLS', problems.join('; '));
  return pools as PoolConfig;
}
