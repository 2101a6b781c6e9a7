import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { billInstance } from '../billing/billables.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { canonicalIpv6, ipv4ToNum, numToIpv4 } from '../../lib/ip.js';
import { findInstance, type InstanceRow } from '../compute/compute.repository.js';
import type { IpAllocator } from './ip-allocator.js';
import { type IpRow, ipv4Rows, natsOf } from './ips.repository.js';
import { type RangeRow, rangesOf } from './ipv6.repository.js';

export interface AssignDeps {
  db: Database;
  ips: IpAllocator;
  /** The job clock: moved addresses change which instances pay for an extra IPv4. */
  clock?: Clock;
}

/** An address of a request, resolved to its row. */
type Item = { kind: 'ipv4'; row: IpRow } | { kind: 'range'; row: RangeRow };

const ownerOf = (i: Item): number | null => i.row.instance_id;

/** Statuses in which an instance's addresses may move (not while deleting, migrating …). */
const MOVABLE = new Set([
  'running',
  'offline',
  'booting',
  'rebooting',
  'shutting_down',
  'provisioning',
]);

/**
 * `POST /networking/ips/assign` and `/networking/ips/share` (and their `/ipv4/` twins). Each runs
 * in one transaction that first takes the region's `assign` lock (so assignments and shares in a
 * region run one at a time), then locks every instance involved in id order, then re-reads the
 * addresses it moves: no address is ever on two instances, and the rules are checked against the
 * state that is written.
 */
export class AssignService {
  constructor(private readonly d: AssignDeps) {}

  private async lockRegion(tx: Database, region: string): Promise<void> {
    await tx.db
      .insertInto('ip_allocation_locks')
      .values({ region, kind: 'assign' })
      .onConflict((oc) => oc.columns(['region', 'kind']).doNothing())
      .execute();
    await tx
      .forUpdate(
        tx.db
          .selectFrom('ip_allocation_locks')
          .selectAll()
          .where('region', '=', region)
          .where('kind', '=', 'assign'),
      )
      .execute();
  }

  /** An IPv4 address, or an IPv6 range written `net/len` (assign) or `net` (share). */
  private async resolve(
    tx: Database,
    p: Principal,
    text: string,
    field: string,
    withPrefix: boolean,
  ): Promise<Item> {
    const n = ipv4ToNum(text);
    if (!Number.isNaN(n)) {
      const row = await tx.db
        .selectFrom('ip_addresses')
        .selectAll()
        .where('account_id', '=', p.accountId)
        .where('address', '=', numToIpv4(n))
        // An instance's address, or a reserved one no instance holds (assigning takes it).
        .where((eb) => eb.or([eb('instance_id', 'is not', null), eb('reserved', '=', 1)]))
        .orderBy('id')
        .executeTakeFirst();
      if (!row) throw errors.invalidField(field, `${text} is not one of your addresses`);
      return { kind: 'ipv4', row };
    }
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(text);
    const net = m ? canonicalIpv6(m[1] ?? '') : undefined;
    const prefix = m?.[2] === undefined ? undefined : Number(m[2]);
    if (!net || (withPrefix ? prefix !== 56 && prefix !== 64 : prefix !== undefined))
      throw errors.invalidField(
        field,
        withPrefix
          ? `${text} must be an IPv4 address or an IPv6 range with /56 or /64`
          : `${text} must be an IPv4 address or an IPv6 range without prefix length`,
      );
    let q = tx.db
      .selectFrom('ipv6_ranges')
      .selectAll()
      .where('account_id', '=', p.accountId)
      .where('range', '=', net);
    if (prefix !== undefined) q = q.where('prefix', '=', prefix);
    const row = await q.executeTakeFirst();
    if (!row) throw errors.invalidField(field, `${text} is not one of your IPv6 ranges`);
    return { kind: 'range', row };
  }

  /** Locks the instances in id order; each must be the caller's, in the region, writable. */
  private async lockInstances(
    tx: Database,
    p: Principal,
    ids: Iterable<number>,
    region: string,
  ): Promise<Map<number, InstanceRow>> {
    const out = new Map<number, InstanceRow>();
    for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
      const inst = await findInstance(tx, p.accountId, id, true);
      const perm = inst ? await authz.permissionOn(tx, p, 'compute', id) : null;
      if (!inst || perm === null) throw errors.reason(`Compute ${id} not found.`);
      if (perm !== 'read_write') throw errors.unauthorized();
      if (inst.region !== region)
        throw errors.reason(
          `Compute ${id} is not in ${region}: all addresses and Computes must be in one region.`,
        );
      if (!MOVABLE.has(inst.status)) throw errors.busy('Compute');
      out.set(id, inst);
    }
    return out;
  }

  /** Shared addresses cannot move; neither can an address with an active 1:1 NAT. */
  private async assertMovable(
    tx: Database,
    items: readonly Item[],
    instances: Map<number, InstanceRow>,
    verb: string,
  ): Promise<void> {
    for (const it of items) {
      const col = it.kind === 'ipv4' ? 'ip_id' : 'range_id';
      const shared = await tx.db
        .selectFrom('ip_shares')
        .select('id')
        .where(col, '=', it.row.id)
        .executeTakeFirst();
      if (shared && verb === 'assigned')
        throw errors.reason(`${label(it)} is shared and cannot be swapped.`);
      const owner = ownerOf(it);
      const inst = owner === null ? undefined : instances.get(owner);
      if (it.kind === 'ipv4' && inst) {
        const nat = (await natsOf(tx, inst, await ipv4Rows(tx, inst.id))).get(it.row.address);
        if (nat?.active)
          throw errors.reason(
            `${it.row.address} has an active 1:1 NAT to a VPC interface and cannot be ${verb}.`,
          );
      }
    }
  }

  async assign(
    p: Principal,
    b: { region: string; assignments: { address: string; compute_id: number }[] },
  ): Promise<void> {
    if (!this.d.ips.hasRegion(b.region)) throw errors.invalidField('region', 'region is not valid');
    if (b.assignments.length === 0)
      throw errors.invalidField('assignments', 'At least one assignment is required');
    await this.d.db.transaction(async (tx) => {
      await this.lockRegion(tx, b.region);
      const fe = new FieldErrors();
      const items: Item[] = [];
      for (const [i, a] of b.assignments.entries()) {
        items.push(await this.resolve(tx, p, a.address, `assignments[${i}].address`, true));
      }
      const keys = items.map((it) => `${it.kind}:${it.row.id}`);
      if (new Set(keys).size !== keys.length)
        fe.add('assignments', 'An address may be assigned only once per request');
      items.forEach((it, i) => {
        if (it.row.region !== b.region)
          fe.add(`assignments[${i}].address`, `${label(it)} is not in ${b.region}`);
      });
      fe.throwIfAny();
      const owners = items.map(ownerOf).filter((x): x is number => x !== null);
      const instances = await this.lockInstances(
        tx,
        p,
        [...b.assignments.map((a) => a.compute_id), ...owners],
        b.region,
      );
      // Re-read under the locks: an owner may have deleted an address meanwhile.
      for (const [i, it] of items.entries()) {
        const table = it.kind === 'ipv4' ? 'ip_addresses' : 'ipv6_ranges';
        const now = await tx.db
          .selectFrom(table)
          .select('instance_id')
          .where('id', '=', it.row.id)
          .executeTakeFirst();
        if (!now || now.instance_id !== it.row.instance_id)
          throw errors.invalidField(
            `assignments[${i}].address`,
            `${label(it)} changed meanwhile; try again`,
          );
      }
      await this.assertMovable(tx, items, instances, 'assigned');
      await this.checkAfter(
        tx,
        items,
        b.assignments.map((a) => a.compute_id),
        instances,
      );

      for (const [i, it] of items.entries()) {
        const to = b.assignments[i]?.compute_id as number;
        if (it.kind === 'ipv4') {
          await tx.db
            .updateTable('ip_addresses')
            .set({ instance_id: to })
            .where('id', '=', it.row.id)
            .execute();
        } else {
          const inst = instances.get(to) as InstanceRow;
          await tx.db
            .updateTable('ipv6_ranges')
            .set({
              instance_id: to,
              route_target: inst.ipv6 ?? this.d.ips.slaac(inst.region, inst.id),
            })
            .where('id', '=', it.row.id)
            .execute();
        }
      }
      // Every instance that gained or lost an address: its extra IPv4 periods follow.
      if (this.d.clock) {
        const at = isoSeconds(this.d.clock.nowMs());
        for (const id of instances.keys()) await billInstance(tx, id, at);
      }
    });
  }

  /** After the moves: ≥1 public IPv4, ≤1 private IPv4 and ≤1 IPv6 range on every instance involved. */
  private async checkAfter(
    tx: Database,
    items: readonly Item[],
    targets: readonly number[],
    instances: Map<number, InstanceRow>,
  ): Promise<void> {
    const moved = new Map(items.map((it, i) => [`${it.kind}:${it.row.id}`, targets[i] as number]));
    const ids = [...instances.keys()];
    const v4 = await tx.db
      .selectFrom('ip_addresses')
      .selectAll()
      .where('instance_id', 'in', ids)
      .execute();
    const ranges = await rangesOf(tx, ids);
    const all: Item[] = [
      ...v4.map((row): Item => ({ kind: 'ipv4', row })),
      ...ranges.map((row): Item => ({ kind: 'range', row })),
      ...items,
    ];
    const seen = new Set<string>();
    const count = new Map(ids.map((id) => [id, { pub: 0, priv: 0, range: 0 }]));
    for (const it of all) {
      const key = `${it.kind}:${it.row.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const owner = moved.get(key) ?? ownerOf(it);
      const c = owner === null ? undefined : count.get(owner);
      if (!c) continue;
      if (it.kind === 'range') c.range++;
      else if (it.row.kind === 'public') c.pub++;
      else c.priv++;
    }
    for (const [id, c] of count) {
      if (c.pub < 1) throw errors.reason(`Compute ${id} would have no public IPv4 address.`);
      if (c.priv > 1)
        throw errors.reason(`Compute ${id} would have more than one private IPv4 address.`);
      if (c.range > 1) throw errors.reason(`Compute ${id} would have more than one IPv6 range.`);
    }
  }

  /** Sets the addresses shared with `compute_id` (an empty list removes every share). */
  async share(p: Principal, b: { compute_id: number; ips: string[] }): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const primary = await findInstance(tx, p.accountId, b.compute_id);
      const perm = primary ? await authz.permissionOn(tx, p, 'compute', b.compute_id) : null;
      if (!primary || perm === null) throw errors.invalidField('compute_id', 'Compute not found');
      await this.lockRegion(tx, primary.region);
      const items: Item[] = [];
      for (const [i, text] of b.ips.entries())
        items.push(await this.resolve(tx, p, text, `ips[${i}]`, false));
      const fe = new FieldErrors();
      items.forEach((it, i) => {
        if (it.row.region !== primary.region)
          fe.add(`ips[${i}]`, `${label(it)} is not in the region of Compute ${primary.id}`);
        else if (ownerOf(it) === primary.id)
          fe.add(`ips[${i}]`, `${label(it)} already belongs to Compute ${primary.id}`);
      });
      fe.throwIfAny();
      const owners = items.map(ownerOf).filter((x): x is number => x !== null);
      const instances = await this.lockInstances(tx, p, [primary.id, ...owners], primary.region);
      await this.assertMovable(tx, items, instances, 'shared');
      await tx.db.deleteFrom('ip_shares').where('instance_id', '=', primary.id).execute();
      const unique = new Map(items.map((it) => [`${it.kind}:${it.row.id}`, it]));
      for (const it of unique.values()) {
        await tx.db
          .insertInto('ip_shares')
          .values({
            account_id: p.accountId,
            instance_id: primary.id,
            ip_id: it.kind === 'ipv4' ? it.row.id : null,
            range_id: it.kind === 'range' ? it.row.id : null,
          })
          .execute();
      }
    });
  }
}

const label = (it: Item) =>
  it.kind === 'ipv4' ? it.row.address : `${it.row.range}/${it.row.prefix}`;
