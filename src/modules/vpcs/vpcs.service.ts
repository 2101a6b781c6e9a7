import { authz, type Permission } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { maskOf, numToIpv4 } from '../../lib/ip.js';
import { type Page, type PageParams, pageOf, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { EventWriter } from '../events/events.writer.js';
import { type CheckedSubnet, checkSubnets } from './subnets.rules.js';
import { eui64 } from '../networking/ip-allocator.js';
import type { Net6 } from '../networking/ipv6-math.js';
import { recordVpcEvent } from './vpcs.events.js';
import {
  type ApiVpc,
  findVpc,
  lockVpcPool,
  subnetsInUse,
  subnetsOf,
  toApiVpcs,
  VPC_FILTERS,
  VPC_IP_FILTERS,
  type VpcIpRow,
  type VpcRow,
  type VpcIpv6Row,
  type VpcListingWhere,
  vpcIps,
  vpcIpv6s,
  vpcRangesIn,
} from './vpcs.repository.js';
import {
  allocate,
  checkSubnetIpv6,
  checkVpcIpv6,
  formatNet6,
  INTERFACE_PREFIX,
  parseNet6,
  type RangeRequest,
  readInterfaceIpv6,
  slaacAddress,
  vpcPrefixesOf,
} from './vpc-ipv6.rules.js';
import { labelProblem, overlaps, parseRange, type Range4, vpcRange } from './vpcs.rules.js';
import type {
  ApiVpcAvailability,
  ApiVpcIp,
  ApiVpcIpv6,
  CreateVpc,
  UpdateVpc,
} from './vpcs.schemas.js';

type XFilter = string | string[] | undefined;

export interface VpcDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  catalogue: CatalogueService;
}

export const SUBNET_V6_TAKEN = 'The range overlaps another subnet of the VPC';
export const SUBNET_V6_FULL = 'No IPv6 range of this length is left in the VPC';

/** The capability of regions where a VPC may have IPv4 ranges of its own (the Go SDK's name). */
export const CUSTOM_RANGES = 'Custom VPC IPv4 Ranges';
/** The real service's refusals of `ipv4` where the region does not take it (recorded). */
export const NO_CUSTOM_RANGES = 'Customer defined IPv4 ranges are not supported in this region';
export const NO_CUSTOM_RANGE = 'You must not use any custom IPv4 range for VPCs.';
/** The real service's refusal of an RDMA VPC with IPv6 (recorded). */
export const RDMA_NO_IPV6 = 'RDMA VPCs cannot have IPv6 ranges';

/**
 * Checks a VPC's own IPv4 ranges (`ipv4` of a create or update) into `fe`: refused where the
 * region lacks `Custom VPC IPv4 Ranges` (the recorded errors: one on `ipv4`, one per range);
 * else each a range of the default ranges (see vpcRange), none overlapping another. Returns the
 * ranges, or undefined when none are asked (null, omitted or `[]`) or some are refused.
 */
export function checkVpcIpv4(
  fe: FieldErrors,
  list: readonly { range?: string | null | undefined }[] | null | undefined,
  capabilities: readonly string[] | undefined,
): Range4[] | undefined {
  if (!list || list.length === 0) return undefined;
  if (capabilities && !capabilities.includes(CUSTOM_RANGES)) {
    fe.add('ipv4', NO_CUSTOM_RANGES);
    for (const k of list.keys()) fe.add(`ipv4[${k}].range`, NO_CUSTOM_RANGE);
    return undefined;
  }
  const out: Range4[] = [];
  let bad = false;
  for (const [k, item] of list.entries()) {
    const r = vpcRange(item.range);
    if (typeof r === 'string') {
      fe.add(`ipv4[${k}].range`, r);
      bad = true;
    } else if (out.some((o) => overlaps(o, r))) {
      fe.add(`ipv4[${k}].range`, 'The range overlaps another IPv4 range of the VPC');
      bad = true;
    } else out.push(r);
  }
  return bad ? undefined : out;
}

export const SUBNET_IN_USE =
  'The subnet is in use by a compute interface; delete the interface first (shut the instance down if it is active).';
export const SUBNET_HAS_NODEBALANCER =
  'The subnet is in use by a NodeBalancer; delete the NodeBalancer first.';

/** Refuses a delete while a NodeBalancer has a VPC configuration in one of the subnets. */
export async function refuseIfNodeBalancerIn(db: Database, subnetIds: readonly number[]) {
  if (subnetIds.length === 0) return;
  const nb = await db.db
    .selectFrom('nodebalancer_vpcs')
    .select('id')
    .where('subnet_id', 'in', [...subnetIds])
    .limit(1)
    .executeTakeFirst();
  if (nb) throw errors.reason(SUBNET_HAS_NODEBALANCER);
}

/** VPCs: list, create (with subnets), view, update, all-or-nothing delete, and VPC addresses. */
export class VpcsService {
  constructor(readonly d: VpcDeps) {}

  now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** A VPC the caller may see (404 otherwise), checked for the given permission. */
  async load(
    db: Database,
    p: Principal,
    id: number,
    level: Permission,
    lock = false,
  ): Promise<VpcRow> {
    const row = await findVpc(db, p.accountId, id, lock);
    if (!row) throw errors.notFound();
    await authz.requireEntity(db, p, 'vpc', id, level);
    return row;
  }

  private async one(db: Database, id: number): Promise<ApiVpc> {
    const row = await db.db.selectFrom('vpcs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw errors.notFound();
    return (await toApiVpcs(db, [row]))[0] as ApiVpc;
  }

  /**
   * Label uniqueness in the account. The account's row is locked first (PostgreSQL), so two
   * concurrent creates or renames of one account cannot both take a label.
   */
  private async assertLabelFree(db: Database, p: Principal, label: string, exceptId?: number) {
    await db
      .forUpdate(db.db.selectFrom('accounts').select('id').where('id', '=', p.accountId))
      .execute();
    let q = db.db
      .selectFrom('vpcs')
      .select('id')
      .where('account_id', '=', p.accountId)
      .where('label', '=', label);
    if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
    if (await q.executeTakeFirst())
      throw errors.invalidField('label', 'Label must be unique among your VPCs');
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiVpc>> {
    const { db } = this.d;
    let base = db.db.selectFrom('vpcs').where('vpcs.account_id', '=', p.accountId);
    const vis = authz.visible(p, 'vpc', 'vpcs.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('vpcs'),
      compileFilter(xf, VPC_FILTERS, db.dialect),
      params,
      { idColumn: 'vpcs.id' },
      (r: VpcRow) => r,
    );
    return { ...page, data: await toApiVpcs(db, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiVpc> {
    await this.load(this.d.db, p, id, 'read_only');
    return this.one(this.d.db, id);
  }

  /** Create: the VPC and its subnets in one transaction; `vpc_create` and a `subnet_create` each. */
  async create(p: Principal, b: CreateVpc): Promise<ApiVpc> {
    authz.requireGlobal(p, 'add_vpcs');
    const fe = new FieldErrors();
    const lp = labelProblem(b.label);
    if (lp) fe.add('label', lp);
    const region = this.d.catalogue.region(b.region);
    if (!region) fe.add('region', 'region is not valid');
    else if (!region.capabilities.includes('VPCs'))
      fe.add('region', 'VPCs are not available in this region');
    const vpcType = b.vpc_type ?? 'regular';
    const ranges = checkVpcIpv4(fe, b.ipv4, region?.capabilities);
    const pool = this.ipv6Pool(b.region);
    // An RDMA VPC has no IPv6 (the recorded refusal); its subnets are then refused IPv6 below.
    const rdmaV6 = vpcType === 'rdma' && (b.ipv6 ?? []).length > 0;
    if (rdmaV6) fe.add('ipv6', RDMA_NO_IPV6);
    const v6 = rdmaV6 ? undefined : checkVpcIpv6(fe, b.ipv6, region, pool);
    const subnets = checkSubnets(fe, b.subnets ?? [], [], (n, f) => `subnets.${n}.${f}`, ranges);
    // Subnet IPv6 in an IPv4-only VPC: refused before anything is taken.
    if (!v6 && !fe.has('ipv6') && !fe.has('ipv6[0].range')) {
      for (const [n, s] of (b.subnets ?? []).entries())
        checkSubnetIpv6(fe, (f) => `subnets.${n}.${f}`, s.ipv6, undefined);
    }
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      await this.assertLabelFree(tx, p, b.label);
      const ipv6 = v6 && pool ? await this.allocateVpcRange(tx, b.region, pool, v6) : null;
      // The subnets' IPv6 is checked against the range just taken (an error rolls it back).
      const sfe = new FieldErrors();
      const v6Range = ipv6 === null ? undefined : parseNet6(ipv6);
      const taken: Net6[] = [];
      const subnetV6 = (b.subnets ?? []).map((s, n) => {
        const at = (f: string) => `subnets.${n}.${f}`;
        const r = checkSubnetIpv6(sfe, at, s.ipv6, v6Range);
        if (!r || !v6Range) return null;
        const got = allocate(v6Range, r, taken);
        if (typeof got === 'string') {
          sfe.add(at('ipv6[0].range'), got === 'taken' ? SUBNET_V6_TAKEN : SUBNET_V6_FULL);
          return null;
        }
        taken.push(got);
        return formatNet6(got);
      });
      sfe.throwIfAny();
      const now = this.now();
      const vpc = await tx.db
        .insertInto('vpcs')
        .values({
          account_id: p.accountId,
          label: b.label,
          description: b.description ?? '',
          region: b.region,
          ipv6,
          ipv4_ranges: ranges ? JSON.stringify(ranges.map((r) => r.cidr)) : null,
          vpc_type: vpcType,
          created: now,
          updated: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await authz.grantCreator(tx, p, 'vpc', vpc.id);
      await recordVpcEvent(this.d.events, tx, p, 'vpc_create', { id: vpc.id, label: b.label });
      for (const [n, s] of subnets.entries())
        await this.insertSubnet(tx, p, { id: vpc.id, label: b.label }, s, subnetV6[n] ?? null);
      return this.one(tx, vpc.id);
    });
  }

  /** The region's VPC IPv6 pool (the catalogue's), if it has one. */
  ipv6Pool(region: string): Net6 | undefined {
    const text = this.d.catalogue.regionExtras(region)?.vpc_ipv6_pool;
    return text === undefined ? undefined : parseNet6(text);
  }

  /**
   * Takes a VPC range from the region's pool: the explicit one when no VPC of the region (of any
   * account) overlaps it, else the lowest free block of the length asked. The pool's lock row
   * (PostgreSQL) serialises concurrent creates in the region.
   */
  private async allocateVpcRange(
    tx: Database,
    region: string,
    pool: Net6,
    req: RangeRequest,
  ): Promise<string> {
    await lockVpcPool(tx, region);
    const used = await vpcRangesIn(tx, region);
    const got = allocate(pool, req, used);
    if (got === 'taken')
      throw errors.invalidField(
        'ipv6[0].range',
        'The range overlaps another VPC\u2019s range in this region',
      );
    if (got === 'full')
      throw errors.invalidField(
        'ipv6[0].range',
        `No /${req.bits} IPv6 range is left in this region`,
      );
    return formatNet6(got);
  }

  /** Inserts a checked subnet and records `subnet_create`; returns its id. */
  async insertSubnet(
    tx: Database,
    p: Principal,
    vpc: { id: number; label: string },
    s: CheckedSubnet,
    ipv6: string | null = null,
  ): Promise<number> {
    const now = this.now();
    const { id } = await tx.db
      .insertInto('vpc_subnets')
      .values({
        vpc_id: vpc.id,
        account_id: p.accountId,
        label: s.label,
        ipv4: s.range.cidr,
        ipv4_start: s.range.start,
        ipv4_end: s.range.end,
        ipv6,
        created: now,
        updated: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordVpcEvent(this.d.events, tx, p, 'subnet_create', vpc, { id, label: s.label });
    return id;
  }

  /**
   * Update: `label`, `description`, and `ipv4` (the VPC's own ranges, where the region takes
   * them: every subnet must still lie inside one). Every refusal of the body is answered at once
   * (the recorded refusal lists `ipv4`, its ranges and `label` together).
   */
  async update(p: Principal, id: number, b: UpdateVpc): Promise<ApiVpc> {
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      const fe = new FieldErrors();
      const ranges = checkVpcIpv4(fe, b.ipv4, this.d.catalogue.region(row.region)?.capabilities);
      if (ranges) {
        const subnets = (await subnetsOf(tx, [id])).get(id) ?? [];
        const outside = subnets.filter(
          (s) =>
            !ranges.some((r) => Number(s.ipv4_start) >= r.start && Number(s.ipv4_end) <= r.end),
        );
        if (outside.length > 0)
          fe.add(
            'ipv4',
            `Every subnet must lie inside one of the VPC\u2019s IPv4 ranges (outside: ${outside.map((s) => s.ipv4).join(', ')})`,
          );
      }
      if (b.label !== undefined) {
        const lp = labelProblem(b.label);
        if (lp) fe.add('label', lp);
      }
      fe.throwIfAny();
      if (b.label !== undefined) await this.assertLabelFree(tx, p, b.label, id);
      await tx.db
        .updateTable('vpcs')
        .set({
          label: b.label ?? row.label,
          description: b.description ?? row.description,
          ...(ranges ? { ipv4_ranges: JSON.stringify(ranges.map((r) => r.cidr)) } : {}),
          updated: this.now(),
        })
        .where('id', '=', id)
        .execute();
      await recordVpcEvent(this.d.events, tx, p, 'vpc_update', {
        id,
        label: b.label ?? row.label,
      });
      return this.one(tx, id);
    });
  }

  /**
   * Delete: the VPC and all its subnets, or nothing when an interface uses any of them. The VPC
   * and subnet rows are locked first, so an interface being added waits or sees them gone.
   */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      const subnets = (await subnetsOf(tx, [id], true)).get(id) ?? [];
      const used = await subnetsInUse(
        tx,
        subnets.map((s) => s.id),
      );
      if (used.size > 0) throw errors.reason(SUBNET_IN_USE);
      await refuseIfNodeBalancerIn(
        tx,
        subnets.map((s) => s.id),
      );
      await tx.db.deleteFrom('vpc_subnets').where('vpc_id', '=', id).execute();
      await tx.db.deleteFrom('vpcs').where('id', '=', id).execute();
      await authz.dropEntity(tx, 'vpc', id);
      await recordVpcEvent(this.d.events, tx, p, 'vpc_delete', row);
      for (const s of subnets) await recordVpcEvent(this.d.events, tx, p, 'subnet_delete', row, s);
    });
  }

  /**
   * `GET /regions/vpc-availability` (every region, by id) and one region's: `available` where the
   * region offers VPCs; `available_ipv6_prefix_lengths` the VPC prefix lengths the region offers
   * of which a free block is left in its pool (allocated VPCs of every account count).
   */
  async availability(params: PageParams): Promise<Page<ApiVpcAvailability>> {
    const { db } = this.d;
    const base = db.db.selectFrom('regions');
    return pageOf(
      params,
      async (limit, offset) => {
        const rows = await base.select('id').orderBy('id').limit(limit).offset(offset).execute();
        return Promise.all(rows.map((r) => this.regionAvailability(r.id)));
      },
      async () =>
        Number(
          (await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.n ?? 0,
        ),
    );
  }

  async regionAvailability(id: string): Promise<ApiVpcAvailability> {
    const region = this.d.catalogue.region(id);
    if (!region) throw errors.notFound();
    const pool = this.ipv6Pool(id);
    const offered = pool ? vpcPrefixesOf(region.capabilities) : [];
    const used = offered.length === 0 ? [] : await vpcRangesIn(this.d.db, id);
    return {
      region: id,
      available: region.capabilities.includes('VPCs'),
      available_ipv6_prefix_lengths: offered.filter(
        (bits) => pool !== undefined && allocate(pool, { bits }, used) !== 'full',
      ),
    };
  }

  /** `GET /vpcs/ipv6s` and `GET /vpcs/{vpcId}/ipv6s`: every IPv6 range of VPC interfaces. */
  ipv6s(p: Principal, params: PageParams, xf: XFilter, vpcId?: number): Promise<Page<ApiVpcIpv6>> {
    return this.listing(p, params, xf, vpcId, vpcIpv6s, toApiVpcIpv6);
  }

  /** `GET /vpcs/ips` and `GET /vpcs/{vpcId}/ips`: every address and range of vpc interfaces. */
  ips(p: Principal, params: PageParams, xf: XFilter, vpcId?: number): Promise<Page<ApiVpcIp>> {
    return this.listing(p, params, xf, vpcId, vpcIps, toApiVpcIp);
  }

  /** A page of an address listing (the relation `vips`): of one VPC, or of every VPC the caller sees. */
  private async listing<Row, Out>(
    p: Principal,
    params: PageParams,
    xf: XFilter,
    vpcId: number | undefined,
    rows: (db: Database, accountId: number, where: VpcListingWhere) => ReturnType<typeof vpcIps>,
    toApi: (row: Row) => Out,
  ): Promise<Page<Out>> {
    const { db } = this.d;
    if (vpcId !== undefined) await this.load(db, p, vpcId, 'read_only');
    const base = rows(db, p.accountId, {
      ...(vpcId !== undefined ? { vpcId } : {}),
      visible: authz.visible(p, 'vpc', 'v.id'),
    });
    return paginate(
      base,
      (qb) => qb.selectAll(),
      compileFilter(xf, VPC_IP_FILTERS, db.dialect),
      params,
      { idColumn: 'vips.ord' },
      toApi,
    );
  }
}

/** A row of the VPC IPv6 listing in the API's shape. */
export function toApiVpcIpv6(r: VpcIpv6Row): ApiVpcIpv6 {
  const computeId = Number(r.compute_id);
  const slaac = Number(r.slaac) === 1;
  return {
    active: Number(r.active) === 1,
    address: null,
    address_range: null,
    config_id: r.config_id === null ? null : Number(r.config_id),
    gateway: null,
    interface_id: Number(r.interface_id),
    compute_id: computeId,
    nat_1_1: '',
    prefix: Number(r.ipv6_range.split('/')[1] ?? INTERFACE_PREFIX),
    region: r.region,
    subnet_id: Number(r.subnet_id),
    subnet_mask: '',
    vpc_id: Number(r.vpc_id),
    database_id: null,
    nodebalancer_id: null,
    ipv6_range: r.ipv6_range,
    ipv6_is_public: readInterfaceIpv6(r.ipv6_json)?.is_public ?? false,
    ipv6_addresses: slaac ? [{ slaac_address: slaacAddress(r.ipv6_range, eui64(computeId)) }] : [],
  };
}

/** The VPC IPv6 ranges of one instance (`ipv6.vpc` of `GET /compute/instances/{id}/ips`). */
export async function instanceVpcIpv6s(
  db: Database,
  inst: { id: number; account_id: number },
): Promise<ApiVpcIpv6[]> {
  const rows = await vpcIpv6s(db, inst.account_id, { instanceId: inst.id })
    .selectAll()
    .orderBy('vips.ord')
    .execute();
  return (rows as VpcIpv6Row[]).map(toApiVpcIpv6);
}

/** A row of the VPC address listing in the API's shape. */
export function toApiVpcIp(r: VpcIpRow): ApiVpcIp {
  const subnet = parseRange(r.subnet_cidr);
  const range = r.address_range === null ? undefined : parseRange(r.address_range);
  const prefix = range?.prefix ?? subnet?.prefix ?? 32;
  return {
    active: Number(r.active) === 1,
    address: r.address,
    address_range: r.address_range,
    config_id: r.config_id === null ? null : Number(r.config_id),
    gateway: r.address === null || !subnet ? null : numToIpv4(subnet.start + 1),
    interface_id: Number(r.interface_id),
    compute_id: Number(r.compute_id),
    nat_1_1: r.address === null ? null : r.nat_1_1,
    prefix,
    region: r.region,
    subnet_id: Number(r.subnet_id),
    subnet_mask: maskOf(prefix),
    vpc_id: Number(r.vpc_id),
    // Addresses of databases and NodeBalancers in VPCs are not served: these are instances'.
    database_id: null,
    nodebalancer_id: null,
  };
}

/** The VPC addresses of one instance (`ipv4.vpc` of `GET /compute/instances/{id}/ips`). */
export async function instanceVpcIps(
  db: Database,
  inst: { id: number; account_id: number },
): Promise<ApiVpcIp[]> {
  const rows = await vpcIps(db, inst.account_id, { instanceId: inst.id })
    .selectAll()
    .orderBy('vips.ord')
    .execute();
  return (rows as VpcIpRow[]).map(toApiVpcIp);
}
