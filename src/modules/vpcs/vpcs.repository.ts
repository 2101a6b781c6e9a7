import { type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { Net6 } from '../networking/ipv6-math.js';
import { parseNet6 } from './vpc-ipv6.rules.js';
import { DEFAULT_IPV4_RANGES, parseRange, type Range4 } from './vpcs.rules.js';
import type { VpcSubnetsTable, VpcsTable } from './vpcs.table.js';

export type VpcRow = Selectable<VpcsTable>;

/** A VPC's own IPv4 ranges as stored (a JSON array of CIDRs), or undefined: the defaults. */
export function customRanges(row: Pick<VpcRow, 'ipv4_ranges'>): Range4[] | undefined {
  if (row.ipv4_ranges === null) return undefined;
  return (JSON.parse(row.ipv4_ranges) as string[]).map((t) => parseRange(t) as Range4);
}

/** The VPC's IPv4 ranges as answered: its own, else the default ranges. */
export const ipv4Out = (row: Pick<VpcRow, 'ipv4_ranges'>) =>
  (row.ipv4_ranges === null
    ? [...DEFAULT_IPV4_RANGES]
    : (JSON.parse(row.ipv4_ranges) as string[])
  ).map((range) => ({ range }));
export type SubnetRow = Omit<VpcSubnetsTable, 'id'> & { id: number };

/** Filterable fields (reference `x-compute-filterable`). */
export const VPC_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'vpcs.id' },
  label: { kind: 'string', column: 'vpcs.label' },
  region: { kind: 'string', column: 'vpcs.region' },
  created: { kind: 'datetime', column: 'vpcs.created' },
  updated: { kind: 'datetime', column: 'vpcs.updated' },
};
export const SUBNET_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'vpc_subnets.id' },
  label: { kind: 'string', column: 'vpc_subnets.label' },
  created: { kind: 'datetime', column: 'vpc_subnets.created' },
  updated: { kind: 'datetime', column: 'vpc_subnets.updated' },
};
export const VPC_IP_FILTERS: FilterSpec = {
  active: { kind: 'bool', column: 'vips.active' },
  config_id: { kind: 'int', column: 'vips.config_id' },
  compute_id: { kind: 'int', column: 'vips.compute_id' },
  region: { kind: 'string', column: 'vips.region' },
  vpc_id: { kind: 'int', column: 'vips.vpc_id' },
};

export async function findVpc(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<VpcRow | undefined> {
  const q = db.db
    .selectFrom('vpcs')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

export async function findSubnet(
  db: Database,
  vpcId: number,
  id: number,
  lock = false,
): Promise<SubnetRow | undefined> {
  const q = db.db
    .selectFrom('vpc_subnets')
    .selectAll()
    .where('id', '=', id)
    .where('vpc_id', '=', vpcId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/** The subnets of VPCs, each list by id. */
export async function subnetsOf(
  db: Database,
  vpcIds: readonly number[],
  lock = false,
): Promise<Map<number, SubnetRow[]>> {
  const out = new Map<number, SubnetRow[]>(vpcIds.map((id) => [id, []]));
  if (vpcIds.length === 0) return out;
  const q = db.db
    .selectFrom('vpc_subnets')
    .selectAll()
    .where('vpc_id', 'in', [...vpcIds])
    .orderBy('id');
  for (const r of await (lock ? db.forUpdate(q) : q).execute()) out.get(r.vpc_id)?.push(r);
  return out;
}

/**
 * Locks a region's VPC IPv6 pool (its row of `ip_allocation_locks`, kind `vpc_ipv6`): VPC
 * ranges of a region are taken one create at a time (PostgreSQL; SQLite has one writer).
 */
export async function lockVpcPool(db: Database, region: string): Promise<void> {
  await db.db
    .insertInto('ip_allocation_locks')
    .values({ region, kind: 'vpc_ipv6' })
    .onConflict((oc) => oc.columns(['region', 'kind']).doNothing())
    .execute();
  await db
    .forUpdate(
      db.db
        .selectFrom('ip_allocation_locks')
        .selectAll()
        .where('region', '=', region)
        .where('kind', '=', 'vpc_ipv6'),
    )
    .execute();
}

/** The IPv6 ranges of every VPC of a region (all accounts). */
export async function vpcRangesIn(db: Database, region: string): Promise<Net6[]> {
  const rows = await db.db
    .selectFrom('vpcs')
    .select('ipv6')
    .where('region', '=', region)
    .where('ipv6', 'is not', null)
    .execute();
  return rows.flatMap((r) => {
    const n = r.ipv6 === null ? undefined : parseNet6(r.ipv6);
    return n ? [n] : [];
  });
}

/** The IPv6 ranges of a VPC's subnets. */
export function subnetRanges(rows: readonly { ipv6: string | null }[]): Net6[] {
  return rows.flatMap((r) => {
    const n = r.ipv6 === null ? undefined : parseNet6(r.ipv6);
    return n ? [n] : [];
  });
}

/** `ipv6` as answered: `[{range}]`, or null for an IPv4-only VPC or subnet (the wire). */
export const ipv6Out = (range: string | null) => (range === null ? null : [{ range }]);

/** Ids of the subnets among `ids` that an interface (of any profile) uses. */
export async function subnetsInUse(db: Database, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.db
    .selectFrom('config_interfaces')
    .select('subnet_id')
    .distinct()
    .where('purpose', '=', 'vpc')
    .where('subnet_id', 'in', [...ids])
    .execute();
  // An instance's own interfaces (interface_generation compute) use subnets too.
  const own = await db.db
    .selectFrom('compute_interfaces')
    .select('subnet_id')
    .distinct()
    .where('purpose', '=', 'vpc')
    .where('subnet_id', 'in', [...ids])
    .execute();
  return new Set([...rows, ...own].map((r) => r.subnet_id as number));
}

/**
 * Whether an instance has a vpc interface in any of its profiles (migration across data centers
 * is refused for it).
 */
export async function instanceHasVpcInterface(db: Database, instanceId: number): Promise<boolean> {
  const row = await db.db
    .selectFrom('config_interfaces')
    .select('id')
    .where('instance_id', '=', instanceId)
    .where('purpose', '=', 'vpc')
    .limit(1)
    .executeTakeFirst();
  if (row) return true;
  const own = await db.db
    .selectFrom('compute_interfaces')
    .select('id')
    .where('instance_id', '=', instanceId)
    .where('purpose', '=', 'vpc')
    .limit(1)
    .executeTakeFirst();
  return own !== undefined;
}

/** `active` in SQL: the interface's profile is the booted one of a running instance. */
const activeSql = sql<number>`case when i.status = 'running' and i.last_booted_config_id = ci.config_id then 1 else 0 end`;

interface ComputeOnSubnet {
  id: number;
  interfaces: { id: number; active: boolean; config_id: number | null }[];
}

/** Instances with a vpc interface on each subnet (active profile or not), by instance id. */
export async function computesOf(
  db: Database,
  subnetIds: readonly number[],
): Promise<Map<number, ComputeOnSubnet[]>> {
  const out = new Map<number, ComputeOnSubnet[]>(subnetIds.map((id) => [id, []]));
  if (subnetIds.length === 0) return out;
  const rows = await db.db
    .selectFrom('config_interfaces as ci')
    .innerJoin('instances as i', 'i.id', 'ci.instance_id')
    .select(['ci.id', 'ci.subnet_id', 'ci.instance_id', 'ci.config_id', activeSql.as('active')])
    .where('ci.purpose', '=', 'vpc')
    .where('ci.subnet_id', 'in', [...subnetIds])
    .orderBy('ci.instance_id')
    .orderBy('ci.id')
    .execute();
  // An instance's own interfaces are active while it runs.
  const own = await db.db
    .selectFrom('compute_interfaces as ci')
    .innerJoin('instances as i', 'i.id', 'ci.instance_id')
    .select([
      'ci.id',
      'ci.subnet_id',
      'ci.instance_id',
      sql<number>`case when i.status = 'running' then 1 else 0 end`.as('active'),
    ])
    .where('ci.purpose', '=', 'vpc')
    .where('ci.subnet_id', 'in', [...subnetIds])
    .execute();
  const all = [...rows, ...own.map((r) => ({ ...r, config_id: null as number | null }))];
  all.sort((a, b) => a.instance_id - b.instance_id || a.id - b.id);
  for (const r of all) {
    const list = out.get(r.subnet_id as number);
    if (!list) continue;
    let c = list.find((x) => x.id === r.instance_id);
    if (!c) {
      c = { id: r.instance_id, interfaces: [] };
      list.push(c);
    }
    c.interfaces.push({
      id: r.id,
      active: Number(r.active) === 1,
      config_id: r.config_id === null ? null : Number(r.config_id),
    });
  }
  return out;
}

/** The NodeBalancers with a VPC configuration in each subnet, with their ranges, by subnet id. */
export async function nodebalancersOf(
  db: Database,
  subnetIds: readonly number[],
): Promise<Map<number, SubnetNodeBalancer[]>> {
  const out = new Map<number, SubnetNodeBalancer[]>(subnetIds.map((id) => [id, []]));
  if (subnetIds.length === 0) return out;
  const rows = await db.db
    .selectFrom('nodebalancer_vpcs')
    .select(['subnet_id', 'nodebalancer_id', 'ipv4_range', 'ipv6_range'])
    .where('subnet_id', 'in', [...subnetIds])
    .orderBy('nodebalancer_id')
    .execute();
  for (const r of rows)
    out.get(r.subnet_id)?.push({
      id: r.nodebalancer_id,
      ipv4_range: r.ipv4_range,
      ipv6_ranges: r.ipv6_range === null ? [] : [{ range: r.ipv6_range }],
    });
  return out;
}

interface SubnetNodeBalancer {
  id: number;
  ipv4_range: string;
  ipv6_ranges: { range: string }[];
}

/** The type of each VPC among `ids` (a subnet shows its VPC's). */
async function vpcTypesOf(db: Database, ids: readonly number[]) {
  const out = new Map<number, 'regular' | 'rdma'>();
  if (ids.length === 0) return out;
  const rows = await db.db
    .selectFrom('vpcs')
    .select(['id', 'vpc_type'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  for (const r of rows) out.set(r.id, r.vpc_type);
  return out;
}

export async function toApiSubnets(db: Database, rows: readonly SubnetRow[]) {
  const ids = rows.map((r) => r.id);
  const [computes, nodebalancers, types] = await Promise.all([
    computesOf(db, ids),
    nodebalancersOf(db, ids),
    vpcTypesOf(
      db,
      rows.map((r) => r.vpc_id),
    ),
  ]);
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    ipv4: r.ipv4,
    ipv6: ipv6Out(r.ipv6),
    vpc_type: types.get(r.vpc_id) ?? 'regular',
    computes: computes.get(r.id) ?? [],
    databases: [] as { id: number }[],
    nodebalancers: nodebalancers.get(r.id) ?? [],
    created: r.created,
    updated: r.updated,
  }));
}
export type ApiSubnet = Awaited<ReturnType<typeof toApiSubnets>>[number];

export async function toApiVpcs(db: Database, rows: readonly VpcRow[]) {
  const subnets = await subnetsOf(
    db,
    rows.map((r) => r.id),
  );
  const api = await toApiSubnets(db, [...subnets.values()].flat());
  const byId = new Map(api.map((s) => [s.id, s]));
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    description: r.description,
    region: r.region,
    ipv4: ipv4Out(r),
    ipv6: ipv6Out(r.ipv6),
    vpc_type: r.vpc_type,
    subnets: (subnets.get(r.id) ?? []).map((s) => byId.get(s.id) as ApiSubnet),
    created: r.created,
    updated: r.updated,
  }));
}
export type ApiVpc = Awaited<ReturnType<typeof toApiVpcs>>[number];

/** Ids and labels of an account's VPCs, for the grants views. */
export async function vpcLabels(db: Database, accountId: number) {
  return db.db
    .selectFrom('vpcs')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** One row of the VPC address listing: an interface's address or one of its ranges. */
export interface VpcIpRow {
  interface_id: number;
  /** null for an instance's own interface (interface_generation compute). */
  config_id: number | null;
  compute_id: number;
  region: string;
  vpc_id: number;
  subnet_id: number;
  subnet_start: number | string;
  subnet_cidr: string;
  address: string | null;
  address_range: string | null;
  nat_1_1: string | null;
  active: number;
  ord: number | string;
}

/** Which VPC interfaces an account's address listing shows. */
export interface VpcListingWhere {
  vpcId?: number;
  instanceId?: number;
  visible?: RawBuilder<SqlBool> | undefined;
}

/**
 * The condition on the VPC interfaces `ci` (joined to their subnet `s`, VPC `v` and instance
 * `i`) of an account's address listings, with the listing's own conditions after the purpose.
 */
function listedInterfaces(
  accountId: number,
  where: VpcListingWhere,
  ...own: RawBuilder<unknown>[]
): RawBuilder<unknown> {
  return sql.join(
    [
      sql`ci.purpose = 'vpc'`,
      ...own,
      sql`v.account_id = ${accountId}`,
      ...(where.vpcId !== undefined ? [sql`v.id = ${where.vpcId}`] : []),
      ...(where.instanceId !== undefined ? [sql`ci.instance_id = ${where.instanceId}`] : []),
      ...(where.visible ? [where.visible] : []),
    ],
    sql` and `,
  );
}

/** The 1-based position of an element `r` of a JSON array expanded into rows. */
const elementNumber = (db: Database) => (db.dialect === 'postgres' ? sql`r.n` : sql`(r.key + 1)`);

/** An instance's own interfaces (interface_generation compute) are active while it runs. */
const ownActive = sql<number>`case when i.status = 'running' then 1 else 0 end`;

/**
 * Every address and range of every vpc interface of an account as one relation `vips`, for
 * paging and X-Filter. `ord` orders by interface, the address before its ranges.
 */
export function vpcIps(db: Database, accountId: number, where: VpcListingWhere) {
  const cond = listedInterfaces(accountId, where);
  const from = sql`config_interfaces ci
    join vpc_subnets s on s.id = ci.subnet_id
    join vpcs v on v.id = s.vpc_id
    join instances i on i.id = ci.instance_id`;
  const ranges =
    db.dialect === 'postgres'
      ? sql`cross join lateral jsonb_array_elements_text(ci.ip_ranges::jsonb) with ordinality as r(value, n)`
      : sql`join json_each(ci.ip_ranges) r`;
  const rangeN = elementNumber(db);
  const nat = sql`case when ci.ipv4_nat_1_1 = 'any' then (
      select p.address from ip_addresses p where p.instance_id = i.id and p.kind = 'public'
      order by p.id limit 1) else ci.ipv4_nat_1_1 end`;
  const common = sql`ci.id as interface_id, ci.config_id as config_id, ci.instance_id as compute_id,
    v.region as region, v.id as vpc_id, s.id as subnet_id, s.ipv4_start as subnet_start,
    s.ipv4 as subnet_cidr`;
  // An instance's own interfaces (interface_generation compute): no profile, active while it
  // runs; their order keys sit in the upper half of each id's block, so none collides.
  const ownFrom = sql`compute_interfaces ci
    join vpc_subnets s on s.id = ci.subnet_id
    join vpcs v on v.id = s.vpc_id
    join instances i on i.id = ci.instance_id`;
  const ownCommon = sql`ci.id as interface_id, cast(null as integer) as config_id,
    ci.instance_id as compute_id, v.region as region, v.id as vpc_id, s.id as subnet_id,
    s.ipv4_start as subnet_start, s.ipv4 as subnet_cidr`;
  const union = sql<VpcIpRow>`(
    select ${common}, ci.ipv4_vpc as address, cast(null as text) as address_range,
      ${nat} as nat_1_1, ${activeSql} as active, cast(ci.id as bigint) * 1048576 as ord
    from ${from} where ${cond} and ci.ipv4_vpc is not null
    union all
    select ${common}, cast(null as text), r.value, cast(null as text), ${activeSql},
      cast(ci.id as bigint) * 1048576 + ${rangeN}
    from ${from} ${ranges} where ${cond} and ci.ip_ranges is not null
    union all
    select ${ownCommon}, ci.ipv4_vpc, cast(null as text), ${nat}, ${ownActive},
      cast(ci.id as bigint) * 1048576 + 524288
    from ${ownFrom} where ${cond} and ci.ipv4_vpc is not null
    union all
    select ${ownCommon}, cast(null as text), r.value, cast(null as text), ${ownActive},
      cast(ci.id as bigint) * 1048576 + 524288 + ${rangeN}
    from ${ownFrom} ${ranges} where ${cond} and ci.ip_ranges is not null
  )`;
  return db.db.selectFrom(union.as('vips'));
}

/** One row of the VPC IPv6 listing: a SLAAC /64 or a routed /64 of a VPC interface. */
export interface VpcIpv6Row {
  interface_id: number;
  config_id: number | null;
  compute_id: number;
  region: string;
  vpc_id: number;
  subnet_id: number;
  ipv6_range: string;
  /** 1: a SLAAC range (its address is the instance's); 0: a routed range. */
  slaac: number;
  /** The interface's stored IPv6 (JSON), for `is_public`. */
  ipv6_json: string;
  active: number;
  ord: number | string;
}

/**
 * Every IPv6 range of every VPC interface of an account (profile interfaces and an instance's
 * own) as one relation `vips`, for paging and X-Filter: its SLAAC ranges, then its routed ones.
 */
export function vpcIpv6s(db: Database, accountId: number, where: VpcListingWhere) {
  const cond = listedInterfaces(accountId, where, sql`ci.ipv6 is not null`);
  const each = (key: 'slaac' | 'ranges') =>
    db.dialect === 'postgres'
      ? sql`cross join lateral jsonb_array_elements_text((ci.ipv6::jsonb)->${sql.lit(key)}) with ordinality as r(value, n)`
      : sql`join json_each(json_extract(ci.ipv6, ${sql.lit(`$.${key}`)})) r`;
  const rangeN = elementNumber(db);
  const joins = sql`join vpc_subnets s on s.id = ci.subnet_id
    join vpcs v on v.id = s.vpc_id
    join instances i on i.id = ci.instance_id`;
  const cols = (config: RawBuilder<unknown>) => sql`ci.id as interface_id, ${config} as config_id,
    ci.instance_id as compute_id, v.region as region, v.id as vpc_id, s.id as subnet_id,
    r.value as ipv6_range, ci.ipv6 as ipv6_json`;
  const profile = sql`ci.config_id`;
  const own = sql`cast(null as integer)`;
  // Order keys: by interface, SLAAC ranges before routed ones; an instance's own interfaces in
  // the upper half of each id's block, as in vpcIps.
  const union = sql<VpcIpv6Row>`(
    select ${cols(profile)}, 1 as slaac, ${activeSql} as active,
      cast(ci.id as bigint) * 1048576 + ${rangeN} as ord
    from config_interfaces ci ${joins} ${each('slaac')} where ${cond}
    union all
    select ${cols(profile)}, 0, ${activeSql}, cast(ci.id as bigint) * 1048576 + 1024 + ${rangeN}
    from config_interfaces ci ${joins} ${each('ranges')} where ${cond}
    union all
    select ${cols(own)}, 1, ${ownActive}, cast(ci.id as bigint) * 1048576 + 524288 + ${rangeN}
    from compute_interfaces ci ${joins} ${each('slaac')} where ${cond}
    union all
    select ${cols(own)}, 0, ${ownActive},
      cast(ci.id as bigint) * 1048576 + 524288 + 1024 + ${rangeN}
    from compute_interfaces ci ${joins} ${each('ranges')} where ${cond}
  )`;
  return db.db.selectFrom(union.as('vips'));
}

/**
 * 1:1 NATs of instances' current profiles (the last booted, else the first), by public address:
 * the `vpc_nat_1_1` of account-wide address lists. `any` maps the instance's first public IPv4.
 */
export async function natsOfInstances(
  db: Database,
  instanceIds: readonly number[],
): Promise<Map<string, { vpc_id: number; subnet_id: number; address: string }>> {
  const out = new Map<string, { vpc_id: number; subnet_id: number; address: string }>();
  if (instanceIds.length === 0) return out;
  // Profile interfaces and an instance's own VPC interfaces (interface_generation compute) have
  // the same columns for this; the table name is the only difference.
  const nats = (table: 'config_interfaces' | 'compute_interfaces') =>
    db.db
      .selectFrom(`${table} as ci` as 'config_interfaces as ci')
      .innerJoin('instances as i', 'i.id', 'ci.instance_id')
      .select([
        'ci.vpc_id',
        'ci.subnet_id',
        'ci.ipv4_vpc',
        sql<string | null>`case when ci.ipv4_nat_1_1 = 'any' then (
        select p.address from ip_addresses p where p.instance_id = i.id and p.kind = 'public'
        order by p.id limit 1) else ci.ipv4_nat_1_1 end`.as('nat'),
      ])
      .where('ci.purpose', '=', 'vpc')
      .where('ci.ipv4_nat_1_1', 'is not', null)
      .where('ci.instance_id', 'in', [...instanceIds]);
  const rows = await nats('config_interfaces')
    .where(
      sql<SqlBool>`ci.config_id = coalesce(i.last_booted_config_id,
        (select min(c.id) from configs c where c.instance_id = i.id))`,
    )
    .execute();
  const own = await nats('compute_interfaces').execute();
  for (const r of [...rows, ...own]) {
    if (r.nat === null || r.vpc_id === null || r.subnet_id === null || r.ipv4_vpc === null)
      continue;
    out.set(r.nat, { vpc_id: r.vpc_id, subnet_id: r.subnet_id, address: r.ipv4_vpc });
  }
  return out;
}
