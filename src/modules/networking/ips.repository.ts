import { type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../../config/config.js';
import type { Database } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { InstanceRow } from '../compute/compute.repository.js';
import type { IpAddressesTable } from './networking.table.js';

export type IpRow = Selectable<IpAddressesTable>;

/** Filterable fields of the account's address list (reference `x-compute-filterable`). */
export const IP_FILTERS: FilterSpec = {
  address: { kind: 'string', column: 'ips.address' },
  prefix: { kind: 'int', column: 'ips.prefix' },
  type: { kind: 'string', column: 'ips.type' },
  rdns: { kind: 'string', column: 'ips.rdns' },
  region: { kind: 'string', column: 'ips.region' },
  reserved: { kind: 'bool', column: 'ips.reserved' },
};

/** An instance's IPv4 addresses: public first, then private, each by address. */
export async function ipv4Rows(db: Database, instanceId: number): Promise<IpRow[]> {
  return db.db
    .selectFrom('ip_addresses')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .orderBy('kind', 'desc')
    .orderBy('address_num')
    .execute();
}

/** The account's IPv4 rows with this address (a private one may repeat across regions). */
export async function accountIpv4Rows(
  db: Database,
  accountId: number,
  address: string,
): Promise<IpRow[]> {
  return db.db
    .selectFrom('ip_addresses')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('address', '=', address)
    .where('instance_id', 'is not', null)
    .orderBy('kind', 'desc')
    .orderBy('id')
    .execute();
}

/** IPv4 addresses of other instances shared with this one. */
export async function sharedWith(db: Database, instanceId: number): Promise<IpRow[]> {
  return db.db
    .selectFrom('ip_shares as s')
    .innerJoin('ip_addresses as ip', 'ip.id', 's.ip_id')
    .selectAll('ip')
    .where('s.instance_id', '=', instanceId)
    .orderBy('ip.address_num')
    .execute();
}

export async function ipv6RdnsOf(db: Database, instanceId: number): Promise<string | null> {
  const row = await db.db
    .selectFrom('ipv6_rdns')
    .select('rdns')
    .where('instance_id', '=', instanceId)
    .executeTakeFirst();
  return row?.rdns ?? null;
}

export async function setIpv6Rdns(
  db: Database,
  inst: InstanceRow,
  rdns: string | null,
): Promise<void> {
  await db.db.deleteFrom('ipv6_rdns').where('instance_id', '=', inst.id).execute();
  if (rdns !== null) {
    await db.db
      .insertInto('ipv6_rdns')
      .values({ instance_id: inst.id, account_id: inst.account_id, rdns })
      .execute();
  }
}

export interface VpcNat {
  vpc_id: number;
  subnet_id: number;
  address: string;
  /** The interface is in the booted profile of a running instance. */
  active: boolean;
}

/**
 * 1:1 NATs of the instance's current profile (the last booted, else the first), by public
 * address. `any` maps the instance's first public address.
 */
export async function natsOf(
  db: Database,
  inst: InstanceRow,
  rows: readonly IpRow[],
): Promise<Map<string, VpcNat>> {
  const out = new Map<string, VpcNat>();
  if (inst.interface_generation === 'compute') return ownNatsOf(db, inst, rows);
  let configId = inst.last_booted_config_id;
  if (configId === null) {
    const first = await db.db
      .selectFrom('configs')
      .select('id')
      .where('instance_id', '=', inst.id)
      .orderBy('id')
      .executeTakeFirst();
    if (!first) return out;
    configId = first.id;
  }
  const ifaces = await db.db
    .selectFrom('config_interfaces')
    .select(['vpc_id', 'subnet_id', 'ipv4_vpc', 'ipv4_nat_1_1'])
    .where('config_id', '=', configId)
    .where('purpose', '=', 'vpc')
    .where('ipv4_nat_1_1', 'is not', null)
    .execute();
  const firstPublic = [...rows].filter((r) => r.kind === 'public').sort((a, b) => a.id - b.id)[0];
  const active = inst.status === 'running' && inst.last_booted_config_id === configId;
  for (const i of ifaces) {
    const address = i.ipv4_nat_1_1 === 'any' ? firstPublic?.address : i.ipv4_nat_1_1;
    if (!address || i.vpc_id === null || i.subnet_id === null || i.ipv4_vpc === null) continue;
    out.set(address, { vpc_id: i.vpc_id, subnet_id: i.subnet_id, address: i.ipv4_vpc, active });
  }
  return out;
}

/** 1:1 NATs of an instance's own VPC interfaces (interface_generation compute). */
async function ownNatsOf(
  db: Database,
  inst: InstanceRow,
  rows: readonly IpRow[],
): Promise<Map<string, VpcNat>> {
  const out = new Map<string, VpcNat>();
  const ifaces = await db.db
    .selectFrom('compute_interfaces')
    .select(['vpc_id', 'subnet_id', 'ipv4_vpc', 'ipv4_nat_1_1'])
    .where('instance_id', '=', inst.id)
    .where('purpose', '=', 'vpc')
    .where('ipv4_nat_1_1', 'is not', null)
    .execute();
  const firstPublic = [...rows].filter((r) => r.kind === 'public').sort((a, b) => a.id - b.id)[0];
  for (const i of ifaces) {
    const address = i.ipv4_nat_1_1 === 'any' ? firstPublic?.address : i.ipv4_nat_1_1;
    if (!address || i.vpc_id === null || i.subnet_id === null || i.ipv4_vpc === null) continue;
    out.set(address, {
      vpc_id: i.vpc_id,
      subnet_id: i.subnet_id,
      address: i.ipv4_vpc,
      active: inst.status === 'running',
    });
  }
  return out;
}

/** The link-local address of `instances.id` in SQL: `fe80::f03c:HHff:feXX:XXXX` (see eui64). */
function linkLocalSql(dialect: Dialect): RawBuilder<string> {
  if (dialect === 'postgres') {
    return sql<string>`'fe80::f03c:' || to_hex(145 # ((i.id >> 24) & 255)) || 'ff:fe' || lpad(to_hex((i.id >> 16) & 255), 2, '0') || ':' || to_hex(i.id & 65535)`;
  }
  // SQLite has no xor: a ^ b = (a | b) - (a & b).
  return sql<string>`printf('fe80::f03c:%xff:fe%02x:%x', (145 | ((i.id >> 24) & 255)) - (145 & ((i.id >> 24) & 255)), (i.id >> 16) & 255, i.id & 65535)`;
}

export interface ListedIp {
  address: string;
  gateway: string | null;
  subnet_mask: string;
  prefix: number;
  type: string;
  public: number;
  rdns: string | null;
  compute_id: number | null;
  region: string;
  ord: number;
  /** 0/1. */
  reserved: number;
  /** The holding instance's label (null: a reserved address no instance holds). */
  label: string | null;
}

/**
 * The account's addresses as one relation `ips` for paging and X-Filter: public IPv4 rows (of
 * instances, and reserved ones no instance holds), each instance's SLAAC and link-local address
 * (private IPv4 excluded, as the reference says). `ord` orders IPv4 by address, then IPv6 by
 * instance; rdns is the value the API shows.
 */
export function listedIps(
  db: Database,
  accountId: number,
  visible: (idColumn: string) => RawBuilder<SqlBool> | undefined,
  skipIpv6Rdns: boolean,
) {
  const vis = (col: string) => {
    const v = visible(col);
    return v ? sql`and ${v}` : sql``;
  };
  const v6rdns = skipIpv6Rdns ? sql`cast(null as text)` : sql`r.rdns`;
  const union = sql<ListedIp>`(
    select ip.address as address, ip.gateway as gateway, ip.subnet_mask as subnet_mask,
      ip.prefix as prefix, 'ipv4' as type, 1 as public,
      case when ip.instance_id is null then ip.rdns
        else coalesce(ip.rdns, replace(ip.address, '.', '-') || '.ip.computeusercontent.com')
      end as rdns,
      ip.instance_id as compute_id, ip.region as region, ip.address_num as ord,
      ip.reserved as reserved, h.label as label
    from ip_addresses ip left join instances h on h.id = ip.instance_id
    where ip.account_id = ${accountId} and ip.kind = 'public'
      and (ip.instance_id is not null or ip.reserved = 1)
      ${vis('ip.instance_id')}
    union all
    select i.ipv6, 'fe80::1', 'ffff:ffff:ffff:ffff::', 64, 'ipv6', 1, ${v6rdns},
      i.id, i.region, 4294967296 + cast(i.id as bigint) * 2, 0, i.label
    from instances i left join ipv6_rdns r on r.instance_id = i.id
    where i.account_id = ${accountId} and i.ipv6 is not null ${vis('i.id')}
    union all
    select ${linkLocalSql(db.dialect)}, 'fe80::1', 'ffff:ffff:ffff:ffff::', 64, 'ipv6', 0,
      cast(null as text), i.id, i.region, 4294967296 + cast(i.id as bigint) * 2 + 1, 0, i.label
    from instances i
    where i.account_id = ${accountId} ${vis('i.id')}
  )`;
  return db.db.selectFrom(union.as('ips'));
}
