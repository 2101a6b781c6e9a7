import { sql } from 'kysely';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { canonicalIpv6 } from '../../lib/ip.js';
import { type Page, type PageParams, pageOf } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { findInstance, type InstanceRow } from '../compute/compute.repository.js';
import type { IpAllocator } from './ip-allocator.js';
import { findRange, type RangeRow, rangesInRegion, sharesOf } from './ipv6.repository.js';
import { firstFree, fromBig, parseNet6Aligned, sizeOf } from './ipv6-math.js';

export interface Ipv6Deps {
  db: Database;
  clock: Clock;
  ips: IpAllocator;
}

export interface ApiRange {
  range: string;
  prefix: number;
  region: string;
  route_target: string | null;
}

/** The network address of a range as a path or a body names it (no prefix length). */
export const rangeKey = (text: string): string | undefined => canonicalIpv6(text);

/**
 * A new range of `prefix` bits routed to the instance's SLAAC address, in the caller's
 * transaction (`POST /networking/ipv6/ranges`, and a public interface's `ipv6.ranges` asking for
 * `/64` or `/56`): under the region's range lock, the lowest free block; one range per region
 * per account and one per instance. `field` names the request field of the refusals.
 */
export async function allocateRange(
  tx: Database,
  d: { ips: IpAllocator; clock: Clock },
  inst: InstanceRow,
  prefix: number,
  field?: string,
): Promise<{ range: string; route_target: string }> {
  const refuse = (reason: string) =>
    field === undefined ? errors.reason(reason) : errors.invalidField(field, reason);
  const space = d.ips.rangeSpace(inst.region);
  if (!space) throw refuse(`IPv6 ranges are not available in ${inst.region}.`);
  await tx.db
    .insertInto('ip_allocation_locks')
    .values({ region: inst.region, kind: 'ipv6_range' })
    .onConflict((oc) => oc.columns(['region', 'kind']).doNothing())
    .execute();
  await tx
    .forUpdate(
      tx.db
        .selectFrom('ip_allocation_locks')
        .selectAll()
        .where('region', '=', inst.region)
        .where('kind', '=', 'ipv6_range'),
    )
    .execute();
  const inRegion = await rangesInRegion(tx, inst.region);
  if (inRegion.some((r) => r.account_id === inst.account_id))
    throw refuse(`Your account already has an IPv6 range in ${inst.region}.`);
  if (inRegion.some((r) => r.instance_id === inst.id))
    throw refuse('This Compute already has an IPv6 range routed to its SLAAC address.');
  const used = inRegion.flatMap((r) => parseNet6Aligned(`${r.range}/${r.prefix}`) ?? []);
  const block = firstFree(space, prefix, used);
  if (!block) throw refuse(`No more IPv6 ranges are available in ${inst.region}.`);
  const range = fromBig(block.base);
  const slaac = inst.ipv6 ?? d.ips.slaac(inst.region, inst.id);
  await tx.db
    .insertInto('ipv6_ranges')
    .values({
      account_id: inst.account_id,
      region: inst.region,
      range,
      prefix,
      instance_id: inst.id,
      route_target: slaac,
      created: isoSeconds(d.clock.nowMs()),
    })
    .execute();
  return { range: `${range}/${prefix}`, route_target: slaac };
}

/** IPv6 pools (one per region) and ranges (/56, /64) routed to an instance's SLAAC address. */
export class Ipv6Service {
  constructor(private readonly d: Ipv6Deps) {}

  /** `GET /networking/ipv6/pools`: the /64 of each region, routed to every instance there. */
  async pools(_p: Principal, params: PageParams): Promise<Page<ApiRange>> {
    const all = this.d.ips.regions().map((region) => {
      const net = this.d.ips.slaacNet(region);
      const n = parseNet6Aligned(`${net}/64`);
      return {
        range: net,
        prefix: 64,
        region,
        route_target: n ? fromBig(n.base + sizeOf(64) - 1n) : null,
      };
    });
    return pageOf(
      params,
      async (limit, offset) => all.slice(offset, offset + limit),
      async () => all.length,
    );
  }

  private shape(r: RangeRow): ApiRange & { route_target: string } {
    return {
      range: r.range,
      prefix: r.prefix,
      region: r.region,
      route_target: r.route_target ?? '',
    };
  }

  async list(p: Principal, params: PageParams): Promise<Page<ApiRange & { route_target: string }>> {
    const { db } = this.d;
    let q = db.db.selectFrom('ipv6_ranges').where('account_id', '=', p.accountId);
    const vis = authz.visible(p, 'compute', 'instance_id');
    if (vis) q = q.where(vis);
    return pageOf(
      params,
      async (limit, offset) =>
        (await q.selectAll().orderBy('id').limit(limit).offset(offset).execute()).map((r) =>
          this.shape(r),
        ),
      async () =>
        Number((await q.select(sql<number>`count(*)`.as('n')).executeTakeFirst())?.n ?? 0),
    );
  }

  /** A range of the account the caller may see through its instance; 404 otherwise. */
  private async load(
    db: Database,
    p: Principal,
    text: string,
    level: 'read_only' | 'read_write',
  ): Promise<RangeRow> {
    const key = rangeKey(text);
    const row = key === undefined ? undefined : await findRange(db, p.accountId, key);
    if (!row) throw errors.notFound();
    if (row.instance_id !== null)
      await authz.requireEntity(db, p, 'compute', row.instance_id, level);
    else if (p.restricted) throw errors.notFound();
    return row;
  }

  async get(p: Principal, text: string) {
    const { db } = this.d;
    const row = await this.load(db, p, text, 'read_only');
    const shared = await sharesOf(db, { rangeId: row.id });
    return {
      range: row.range,
      prefix: row.prefix,
      region: row.region,
      is_bgp: shared.length > 0,
      computes: [...(row.instance_id === null ? [] : [row.instance_id]), ...shared],
    };
  }

  /** The instance a create names by `compute_id` or by its SLAAC `route_target`. */
  private async target(
    db: Database,
    p: Principal,
    b: { compute_id?: number; route_target?: string },
  ): Promise<InstanceRow> {
    if (b.compute_id !== undefined && b.route_target !== undefined)
      throw errors.invalidField('route_target', 'compute_id and route_target cannot both be given');
    if (b.compute_id === undefined && b.route_target === undefined)
      throw errors.invalidField('compute_id', 'compute_id or route_target is required');
    const field = b.compute_id !== undefined ? 'compute_id' : 'route_target';
    let id = b.compute_id;
    let slaac: string | undefined;
    if (b.route_target !== undefined) {
      slaac = canonicalIpv6(b.route_target);
      id = slaac === undefined ? undefined : this.d.ips.instanceIdOf(slaac);
    }
    const inst = id === undefined ? undefined : await findInstance(db, p.accountId, id, true);
    const perm = inst ? await authz.permissionOn(db, p, 'compute', inst.id) : null;
    if (!inst || perm === null || (slaac !== undefined && inst.ipv6 !== slaac))
      throw errors.invalidField(
        field,
        field === 'compute_id'
          ? 'Compute not found'
          : 'route_target is not the SLAAC address of one of your Computes',
      );
    if (perm !== 'read_write') throw errors.unauthorized();
    if (inst.status === 'deleting') throw errors.busy('Compute');
    return inst;
  }

  /** `POST /networking/ipv6/ranges`. */
  async create(
    p: Principal,
    b: { prefix_length: number; compute_id?: number; route_target?: string },
  ): Promise<{ range: string; route_target: string }> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.target(tx, p, b);
      return allocateRange(tx, this.d, inst, b.prefix_length);
    });
  }

  /** `DELETE /networking/ipv6/ranges/{range}`: never a shared range. */
  async delete(p: Principal, text: string): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, text, 'read_write');
      if ((await sharesOf(tx, { rangeId: row.id })).length > 0)
        throw errors.reason('Shared IPv6 ranges cannot be deleted.');
      await tx.db.deleteFrom('ipv6_ranges').where('id', '=', row.id).execute();
    });
  }
}
