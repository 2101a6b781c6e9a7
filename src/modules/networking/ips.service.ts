import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { Database } from '../../db/database.js';
import { billInstance } from '../billing/billables.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { canonicalIpv6, ipv4ToNum, numToIpv4 } from '../../lib/ip.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import {
  findInstance,
  type InstanceRow,
  insertIp,
  loadInstance,
} from '../compute/compute.repository.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { ApiVpcIp, ApiVpcIpv6 } from '../vpcs/vpcs.schemas.js';
import { natsOfInstances } from '../vpcs/vpcs.repository.js';
import { instanceVpcIps, instanceVpcIpv6s } from '../vpcs/vpcs.service.js';
import type { ForwardDns } from './forward-dns.js';
import type { IpAllocator } from './ip-allocator.js';
import {
  accountIpv4Rows,
  IP_FILTERS,
  type IpRow,
  ipv4Rows,
  ipv6RdnsOf,
  type ListedIp,
  listedIps,
  natsOf,
  setIpv6Rdns,
  type VpcNat,
  sharedWith,
} from './ips.repository.js';
import { rangesOf } from './ipv6.repository.js';
import {
  type ApiIp,
  findReserved,
  IPV4_ONLY,
  ipRef,
  ipv4Api,
  RESERVED_TYPE,
  toApiReserved,
} from './reserved.repository.js';
import { tagsOf } from '../tags/tags.repository.js';
import type { ReservedIpsService } from './reserved.service.js';
import { refuseIfSubresourcesLocked } from '../locks/locks.repository.js';

/**
 * Public IPv4 addresses an instance may hold through `POST …/ips` (the one it is created with
 * included). The real service allows extra ones only after a support ticket; the emulator allows
 * one extra without asking, so both the success and the refusal can be exercised.
 */
export const MAX_PUBLIC_IPV4 = 2;

/** Statuses in which IPv4 addresses may be added or removed (not while migrating, resizing …). */
const ADDRESS_CHANGE_STATUSES = new Set([
  'running',
  'offline',
  'booting',
  'rebooting',
  'shutting_down',
  'provisioning',
]);

export type { ApiIp };

/** SLAAC and link-local addresses always have a gateway. */
export type ApiIpV6 = ApiIp & { gateway: string; compute_id: number };

export interface InstanceIps {
  ipv4: { public: ApiIp[]; private: ApiIp[]; shared: ApiIp[]; reserved: ApiIp[]; vpc: ApiVpcIp[] };
  ipv6: {
    link_local: ApiIpV6;
    slaac: ApiIpV6;
    global: { range: string; prefix: number; region: string; route_target: string | null }[];
    vpc: ApiVpcIpv6[];
  };
}

/** One address of an instance (or an unassigned reserved one), as found from the text of a path. */
type Target =
  | { kind: 'ipv4'; row: IpRow; inst: InstanceRow }
  | { kind: 'slaac' | 'link_local'; inst: InstanceRow; address: string }
  | { kind: 'unassigned'; row: IpRow };

const PRIVATE_AT_DISTRIBUTED_SITE = 'Private IPv4 addresses are not available at distributed sites';

export interface IpsDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  ips: IpAllocator;
  /** Forward-DNS check of reverse DNS names (none configured: any valid hostname). */
  forwardDns?: ForwardDns;
  /** Reservations made and ended through these operations (`reserved`). */
  reserved?: ReservedIpsService;
  /** The regions: a distributed site gives its instances no private IPv4 address. */
  catalogue?: CatalogueService;
}

/** A hostname for reverse DNS: 1..253 characters, dot-separated labels, a non-numeric TLD. */
export function rdnsProblem(rdns: string): string | undefined {
  const name = rdns.endsWith('.') ? rdns.slice(0, -1) : rdns;
  const labels = name.split('.');
  const ok =
    name.length > 0 &&
    name.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(l)) &&
    !/^\d+$/.test(labels[labels.length - 1] ?? '');
  return ok ? undefined : 'rdns must be a valid hostname, such as host.example.com';
}

/**
 * An address in an event (`ipRef`). The reference declares an integer `entity.id`: an IPv4
 * address gives its own id; an instance's SLAAC address, which has no row of its own, gives its
 * instance's id (docs/fidelity.md).
 */
const ipEntity = ipRef;

/**
 * The public interface of each instance of the compute generation among `instanceIds` (it
 * carries the instance's public IPv4 addresses: their `interface_id`), by instance id.
 */
async function publicInterfacesOf(
  db: Database,
  instanceIds: readonly number[],
): Promise<Map<number, number>> {
  if (instanceIds.length === 0) return new Map();
  const rows = await db.db
    .selectFrom('compute_interfaces')
    .select(['id', 'instance_id'])
    .where('instance_id', 'in', [...instanceIds])
    .where('purpose', '=', 'public')
    .orderBy('id')
    .execute();
  const out = new Map<number, number>();
  for (const r of rows) if (!out.has(r.instance_id)) out.set(r.instance_id, r.id);
  return out;
}

/** IP addresses of instances: the instance's view, allocation, reverse DNS, removal and the account list. */
export class IpsService {
  constructor(private readonly d: IpsDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  // ---- shapes ----

  private v4(
    row: IpRow,
    nat: VpcNat | undefined,
    label: string | undefined,
    tags?: string[],
  ): ApiIp {
    return ipv4Api(row, nat, label, tags);
  }

  private v6(inst: InstanceRow, kind: 'slaac' | 'link_local', rdns: string | null): ApiIpV6 {
    return {
      address: kind === 'slaac' ? this.slaacOf(inst) : this.d.ips.linkLocal(inst.id),
      gateway: this.d.ips.ipv6Gateway(),
      subnet_mask: this.d.ips.ipv6Mask(),
      prefix: 64,
      type: 'ipv6',
      public: kind === 'slaac',
      rdns: kind === 'slaac' ? rdns : null,
      compute_id: inst.id,
      interface_id: null,
      region: inst.region,
      vpc_nat_1_1: null,
      reserved: false,
      assigned_entity: {
        id: inst.id,
        label: inst.label,
        type: 'compute',
        url: `/v4/compute/instances/${inst.id}`,
      },
    };
  }

  private slaacOf(inst: InstanceRow): string {
    return (
      (inst.ipv6 === null ? undefined : canonicalIpv6(inst.ipv6)) ??
      this.d.ips.slaac(inst.region, inst.id)
    );
  }

  private async shape(db: Database, t: Target): Promise<ApiIp> {
    if (t.kind === 'unassigned') return this.v4(t.row, undefined, undefined);
    if (t.kind === 'ipv4') {
      const nats = await natsOf(db, t.inst, await ipv4Rows(db, t.inst.id));
      const iface =
        t.row.kind === 'public'
          ? ((await publicInterfacesOf(db, [t.inst.id])).get(t.inst.id) ?? null)
          : null;
      return { ...this.v4(t.row, nats.get(t.row.address), t.inst.label), interface_id: iface };
    }
    const rdns = t.kind === 'slaac' ? await ipv6RdnsOf(db, t.inst.id) : null;
    return this.v6(t.inst, t.kind, rdns);
  }

  // ---- finding an address ----

  /** The address of this instance written in `text` (any valid spelling); 404 otherwise. */
  private async onInstance(db: Database, inst: InstanceRow, text: string): Promise<Target> {
    const n = ipv4ToNum(text);
    if (!Number.isNaN(n)) {
      const row = (await ipv4Rows(db, inst.id)).find((r) => r.address === numToIpv4(n));
      if (row) return { kind: 'ipv4', row, inst };
      throw errors.notFound();
    }
    const v6 = canonicalIpv6(text);
    if (v6 !== undefined && v6 === this.slaacOf(inst)) return { kind: 'slaac', inst, address: v6 };
    if (v6 !== undefined && v6 === this.d.ips.linkLocal(inst.id))
      return { kind: 'link_local', inst, address: v6 };
    throw errors.notFound();
  }

  /** An address of the caller's account on an instance it may see at `level`; 404 otherwise. */
  private async inAccount(
    db: Database,
    p: Principal,
    text: string,
    level: 'read_only' | 'read_write',
  ): Promise<Target> {
    const n = ipv4ToNum(text);
    let inst: InstanceRow | undefined;
    if (!Number.isNaN(n)) {
      // A private address may repeat across regions: the first one the caller may see.
      for (const row of await accountIpv4Rows(db, p.accountId, numToIpv4(n))) {
        if (row.instance_id === null) continue;
        if ((await authz.permissionOn(db, p, 'compute', row.instance_id)) === null) continue;
        inst = await findInstance(db, p.accountId, row.instance_id, level === 'read_write');
        if (!inst) continue;
        await authz.requireEntity(db, p, 'compute', inst.id, level);
        return { kind: 'ipv4', row, inst };
      }
      // An unassigned reserved address: the account's, for its unrestricted users.
      const held = await findReserved(db, p.accountId, text, level === 'read_write');
      if (held && held.instance_id === null && !p.restricted)
        return { kind: 'unassigned', row: held };
      throw errors.notFound();
    }
    const v6 = canonicalIpv6(text);
    const id = v6 === undefined ? undefined : this.d.ips.instanceIdOf(v6);
    if (v6 === undefined || id === undefined) throw errors.notFound();
    inst = await findInstance(db, p.accountId, id, level === 'read_write');
    if (!inst) throw errors.notFound();
    const t = await this.onInstance(db, inst, v6);
    await authz.requireEntity(db, p, 'compute', inst.id, level);
    return t;
  }

  // ---- the instance's addresses ----

  /** `GET /compute/instances/{id}/ips`. */
  async instanceIps(p: Principal, computeId: number): Promise<InstanceIps> {
    const { db } = this.d;
    const inst = await loadInstance(db, p, computeId, 'read_only');
    const rows = await ipv4Rows(db, inst.id);
    const nats = await natsOf(db, inst, rows);
    // An instance's own public interface (interface_generation compute) carries its public
    // IPv4 addresses: `interface_id` names it.
    const publicIface = (await publicInterfacesOf(db, [inst.id])).get(inst.id) ?? null;
    const shape = (r: IpRow) => ({
      ...this.v4(r, nats.get(r.address), inst.label),
      interface_id: r.kind === 'public' ? publicIface : null,
    });
    const shared = await sharedWith(db, inst.id);
    const owners = new Map(
      (await toApiReserved(db, shared)).map((a) => [a.address, a.assigned_entity?.label]),
    );
    const ranges = await rangesOf(db, [inst.id]);
    return {
      ipv4: {
        public: rows.filter((r) => r.kind === 'public').map(shape),
        private: rows.filter((r) => r.kind === 'private').map(shape),
        shared: shared.map((r) => this.v4(r, undefined, owners.get(r.address))),
        // The real service lists an instance's reserved addresses among `public` (with
        // `reserved: true`); this list stays empty, as every recorded answer has it.
        reserved: [],
        vpc: await instanceVpcIps(db, inst),
      },
      ipv6: {
        link_local: this.v6(inst, 'link_local', null),
        slaac: this.v6(inst, 'slaac', await ipv6RdnsOf(db, inst.id)),
        global: ranges.map((r) => ({
          range: r.range,
          prefix: r.prefix,
          region: r.region,
          route_target: r.route_target,
        })),
        vpc: await instanceVpcIpv6s(db, inst),
      },
    };
  }

  async getOnInstance(p: Principal, computeId: number, address: string): Promise<ApiIp> {
    const { db } = this.d;
    const inst = await loadInstance(db, p, computeId, 'read_only');
    return this.shape(db, await this.onInstance(db, inst, address));
  }

  /**
   * `POST /compute/instances/{id}/ips`: a new address, or (`address`) a reserved address of the
   * account that no instance holds, in the instance's region (the recorded refusals).
   */
  async addToInstance(
    p: Principal,
    computeId: number,
    b: { type: string; public: boolean; address?: string },
  ): Promise<ApiIp> {
    return this.d.db.transaction(async (tx) => {
      const inst = await loadInstance(tx, p, computeId, 'read_write', true);
      if (b.address !== undefined)
        return this.assignReserved(tx, p, inst, b.type, b.public, b.address);
      if (b.type !== 'ipv4') throw errors.reason(IPV4_ONLY);
      return this.add(tx, p, inst, b.public);
    });
  }

  private async assignReserved(
    tx: Database,
    p: Principal,
    inst: InstanceRow,
    type: string,
    isPublic: boolean,
    address: string,
  ): Promise<ApiIp> {
    if (address === '' || Number.isNaN(ipv4ToNum(address)))
      throw errors.invalidField('address', 'Must provide a valid reserved address');
    if (!isPublic) throw errors.invalidField('address', 'Cannot reserve a private address.');
    const fe = new FieldErrors();
    if (type !== 'ipv4') fe.add(undefined, IPV4_ONLY);
    const row = await findReserved(tx, p.accountId, address, true);
    if (!row || row.instance_id !== null)
      fe.add('address', 'Address must be reserved and must be currently unassigned.');
    else if (row.region !== inst.region)
      fe.add('address', 'Address must belong to same region as compute.');
    fe.throwIfAny();
    if (!row) throw errors.internal();
    await this.assertRoomForPublic(tx, inst);
    await tx.db
      .updateTable('ip_addresses')
      .set({ instance_id: inst.id, rdns: null })
      .where('id', '=', row.id)
      .execute();
    await billInstance(tx, inst.id, isoSeconds(this.d.clock.nowMs()));
    await this.d.events.record(tx, {
      accountId: p.accountId,
      action: 'reserved_ip_assign',
      entity: ipEntity(row.address, row.id),
      secondaryEntity: entityRefs.compute(inst.id, inst.label),
      status: 'notification',
      username: p.username,
    });
    const [api] = await toApiReserved(tx, [{ ...row, instance_id: inst.id, rdns: null }]);
    return api as ApiIp;
  }

  /** An instance may take another public address: not while busy, within the limit. */
  private async assertRoomForPublic(tx: Database, inst: InstanceRow): Promise<void> {
    if (!ADDRESS_CHANGE_STATUSES.has(inst.status)) throw errors.busy('Compute');
    const rows = await ipv4Rows(tx, inst.id);
    if (rows.filter((r) => r.kind === 'public').length >= MAX_PUBLIC_IPV4) {
      // @NOTE the real service's wording: extra public addresses need a support ticket.
      throw errors.reason('Additional IPv4 addresses require technical justification.');
    }
  }

  /**
   * `POST /networking/ips`: an address for the instance named in the body; with `reserved`, a
   * reserved address, for that instance or unassigned in `region` (the recorded rules).
   */
  async allocate(
    p: Principal,
    b: { type: string; public: boolean; compute_id?: number; reserved?: boolean; region?: string },
  ): Promise<ApiIp> {
    if (b.type !== 'ipv4') throw errors.reason(IPV4_ONLY);
    if (b.reserved) {
      if (!b.public) throw errors.invalidField('public', 'Cannot reserve a private address.');
      if (b.compute_id === undefined && b.region === undefined)
        throw errors.reason(
          'A datacenter or a Compute must be provided when reserving an address.',
        );
      authz.requireUnrestricted(p);
    } else if (b.compute_id === undefined) {
      throw errors.invalidField(
        'compute_id',
        'Compute is a required argument when not reserving an IP address.',
      );
    }
    return this.d.db.transaction(async (tx) => {
      if (b.compute_id === undefined) {
        const region = b.region as string;
        if (!this.d.ips.hasRegion(region))
          throw errors.invalidField('region', 'region is not valid');
        const row = await this.reservations().reserveNew(tx, p, region, null);
        return this.v4(row, undefined, undefined);
      }
      const inst = await findInstance(tx, p.accountId, b.compute_id, true);
      const perm = inst ? await authz.permissionOn(tx, p, 'compute', inst.id) : null;
      if (!inst || perm === null || inst.status === 'deleting')
        throw errors.invalidField(
          'compute_id',
          b.reserved ? 'Compute is not active' : 'Compute not found',
        );
      if (perm !== 'read_write') throw errors.unauthorized();
      if (!b.reserved) return this.add(tx, p, inst, b.public);
      if (b.region !== undefined && b.region !== inst.region)
        throw errors.invalidField('region', "Region passed in must match Compute's region.");
      await this.assertRoomForPublic(tx, inst);
      const row = await this.reservations().reserveNew(tx, p, inst.region, inst);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'compute_addip',
        entity: entityRefs.compute(inst.id, inst.label),
        secondaryEntity: ipEntity(row.address, row.id),
        status: 'finished',
        username: p.username,
      });
      // A new address has no tags yet; the recorded answer carries the empty list.
      return this.v4(row, undefined, inst.label, []);
    });
  }

  private reservations(): ReservedIpsService {
    if (!this.d.reserved) throw errors.internal();
    return this.d.reserved;
  }

  private async add(
    tx: Database,
    p: Principal,
    inst: InstanceRow,
    isPublic: boolean,
  ): Promise<ApiIp> {
    if (!ADDRESS_CHANGE_STATUSES.has(inst.status)) throw errors.busy('Compute');
    const rows = await ipv4Rows(tx, inst.id);
    if (!isPublic && this.d.catalogue?.region(inst.region)?.site_type === 'distributed')
      throw errors.invalidField('public', PRIVATE_AT_DISTRIBUTED_SITE);
    if (!isPublic && rows.some((r) => r.kind === 'private')) {
      throw errors.reason('Compute already has a private IPv4 address.');
    }
    if (isPublic) await this.assertRoomForPublic(tx, inst);
    const kind = isPublic ? 'public' : 'private';
    const ip = await this.d.ips.next(tx, inst.region, kind);
    const { id } = await insertIp(
      tx,
      { accountId: inst.account_id, instanceId: inst.id, region: inst.region, kind, ip },
      this.now(),
    );
    await this.d.events.record(tx, {
      accountId: p.accountId,
      action: 'compute_addip',
      entity: entityRefs.compute(inst.id, inst.label),
      secondaryEntity: ipEntity(ip.address, id),
      status: 'finished',
      username: p.username,
    });
    const row = (await ipv4Rows(tx, inst.id)).find((r) => r.id === id) as IpRow;
    return this.v4(row, undefined, inst.label, []);
  }

  /** `PUT /compute/instances/{id}/ips/{address}`. */
  async updateOnInstance(
    p: Principal,
    computeId: number,
    address: string,
    rdns: string | null,
  ): Promise<ApiIp> {
    const inst = await loadInstance(this.d.db, p, computeId, 'read_write');
    await this.checkForward(await this.onInstance(this.d.db, inst, address), rdns);
    return this.d.db.transaction(async (tx) => {
      const inst = await loadInstance(tx, p, computeId, 'read_write', true);
      return this.setRdns(tx, p, await this.onInstance(tx, inst, address), rdns);
    });
  }

  /**
   * `DELETE /compute/instances/{id}/ips/{address}`: IPv4 only, never the last public one. A
   * reserved address is not deleted: it leaves the instance and stays reserved.
   */
  async deleteFromInstance(p: Principal, computeId: number, address: string): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await loadInstance(tx, p, computeId, 'read_write', true);
      const t = await this.onInstance(tx, inst, address);
      if (t.kind !== 'ipv4') throw errors.reason('Only IPv4 addresses can be deleted.');
      await refuseIfSubresourcesLocked(tx, 'compute', inst.id, 'the IP addresses');
      if (!ADDRESS_CHANGE_STATUSES.has(inst.status)) throw errors.busy('Compute');
      const rows = await ipv4Rows(tx, inst.id);
      if (t.row.kind === 'public' && rows.filter((r) => r.kind === 'public').length <= 1) {
        throw errors.reason('Cannot delete the last public IPv4 address of a Compute.');
      }
      const nat = (await natsOf(tx, inst, rows)).get(t.row.address);
      if (nat?.active) {
        throw errors.reason('Cannot delete an address with a 1:1 NAT to an active VPC interface.');
      }
      const reserved = t.row.reserved === 1;
      if (reserved) {
        await tx.db
          .updateTable('ip_addresses')
          .set({ instance_id: null, rdns: null })
          .where('id', '=', t.row.id)
          .execute();
      } else {
        await tx.db.deleteFrom('ip_addresses').where('id', '=', t.row.id).execute();
      }
      await billInstance(tx, inst.id, isoSeconds(this.d.clock.nowMs()));
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: reserved ? 'reserved_ip_unassign' : 'compute_deleteip',
        entity: reserved
          ? ipEntity(t.row.address, t.row.id)
          : entityRefs.compute(inst.id, inst.label),
        secondaryEntity: reserved
          ? entityRefs.compute(inst.id, inst.label)
          : ipEntity(t.row.address, t.row.id),
        status: reserved ? 'notification' : 'finished',
        username: p.username,
      });
    });
  }

  /**
   * The forward-DNS requirement, asked of the configured resolver before the update's
   * transaction (no network wait while it holds locks). Bad names are left to setRdns.
   */
  private async checkForward(t: Target, rdns: string | null): Promise<void> {
    if (rdns === null || !this.d.forwardDns?.enabled || rdnsProblem(rdns)) return;
    if (t.kind === 'unassigned' || t.kind === 'link_local') return;
    if (t.kind === 'ipv4' && t.row.kind === 'private') return;
    const fwd = await this.d.forwardDns.problem(
      rdns,
      t.kind === 'ipv4' ? t.row.address : t.address,
    );
    if (fwd) throw errors.invalidField('rdns', fwd);
  }

  /** Reverse DNS: a hostname, or null (a public IPv4 address goes back to its default name). */
  private async setRdns(
    tx: Database,
    p: Principal,
    t: Target,
    rdns: string | null,
  ): Promise<ApiIp> {
    if (rdns !== null) {
      const problem = rdnsProblem(rdns);
      if (problem) throw errors.invalidField('rdns', problem);
    }
    if (t.kind === 'unassigned')
      throw errors.invalidField('rdns', 'Reverse DNS cannot be set on an unassigned address');
    if (t.inst.status === 'deleting') throw errors.busy('Compute');
    if (rdns !== null) {
      if (t.kind === 'link_local')
        throw errors.invalidField('rdns', 'Reverse DNS cannot be set on a link-local address');
      if (t.kind === 'ipv4' && t.row.kind === 'private') {
        throw errors.invalidField('rdns', 'Reverse DNS cannot be set on a private address');
      }
    }
    if (t.kind === 'ipv4') {
      await tx.db.updateTable('ip_addresses').set({ rdns }).where('id', '=', t.row.id).execute();
      t.row.rdns = rdns;
    } else if (t.kind === 'slaac') {
      await setIpv6Rdns(tx, t.inst, rdns);
    }
    const address = t.kind === 'ipv4' ? t.row.address : t.address;
    await this.d.events.record(tx, {
      accountId: p.accountId,
      action: 'ipaddress_update',
      entity: ipEntity(address, t.kind === 'ipv4' ? t.row.id : t.inst.id),
      secondaryEntity: entityRefs.compute(t.inst.id, t.inst.label),
      status: 'notification',
      username: p.username,
    });
    return this.shape(tx, t);
  }

  // ---- the account's addresses ----

  /**
   * `GET /networking/ips`: paged in SQL over the union of IPv4 rows (those of instances and the
   * reserved ones no instance holds) and instances' IPv6.
   */
  async list(
    p: Principal,
    params: PageParams,
    xf: string | string[] | undefined,
    skipIpv6Rdns: boolean,
  ): Promise<Page<ApiIp>> {
    const { db } = this.d;
    const base = listedIps(
      db,
      p.accountId,
      (col) => authz.visible(p, 'compute', col),
      skipIpv6Rdns,
    );
    const page = await paginate(
      base,
      (qb) => qb.selectAll(),
      compileFilter(xf, IP_FILTERS, db.dialect),
      params,
      { idColumn: 'ips.ord' },
      (r: ListedIp): ApiIp => {
        const computeId = r.compute_id === null ? null : Number(r.compute_id);
        return {
          address: r.address,
          gateway: r.gateway,
          subnet_mask: r.subnet_mask,
          prefix: Number(r.prefix),
          type: r.type,
          public: Number(r.public) === 1,
          rdns: r.rdns,
          compute_id: computeId,
          interface_id: null,
          region: r.region,
          vpc_nat_1_1: null,
          reserved: Number(r.reserved) === 1,
          assigned_entity:
            computeId === null
              ? null
              : {
                  id: computeId,
                  label: r.label ?? '',
                  type: 'compute',
                  url: `/v4/compute/instances/${computeId}`,
                },
        };
      },
    );
    const nats = await natsOfInstances(db, [
      ...new Set(
        page.data.flatMap((r) =>
          r.type === 'ipv4' && r.compute_id !== null ? [r.compute_id] : [],
        ),
      ),
    ]);
    for (const r of page.data) if (r.type === 'ipv4') r.vpc_nat_1_1 = nats.get(r.address) ?? null;
    // Public IPv4 addresses of instances of the compute generation: their public interface.
    const ifaces = await publicInterfacesOf(db, [
      ...new Set(
        page.data.flatMap((r) =>
          r.type === 'ipv4' && r.public && r.compute_id !== null ? [r.compute_id] : [],
        ),
      ),
    ]);
    for (const r of page.data)
      if (r.type === 'ipv4' && r.public && r.compute_id !== null)
        r.interface_id = ifaces.get(r.compute_id) ?? null;
    // Reserved addresses show their tags, as the recorded list does.
    const reserved = page.data.filter((r) => r.reserved).map((r) => r.address);
    if (reserved.length > 0) {
      const rows = await db.db
        .selectFrom('ip_addresses')
        .select(['id', 'address'])
        .where('account_id', '=', p.accountId)
        .where('reserved', '=', 1)
        .where('address', 'in', reserved)
        .execute();
      const tags = await tagsOf(
        db,
        RESERVED_TYPE,
        rows.map((r) => r.id),
      );
      const byAddress = new Map(rows.map((r) => [r.address, tags.get(r.id) ?? []]));
      for (const r of page.data) if (r.reserved) r.tags = byAddress.get(r.address) ?? [];
    }
    return page;
  }

  async get(p: Principal, address: string): Promise<ApiIp> {
    const { db } = this.d;
    return this.shape(db, await this.inAccount(db, p, address, 'read_only'));
  }

  /**
   * `PUT /networking/ips/{address}`: reverse DNS, and `reserved` (true: the address is kept by
   * the account; false: the reservation ends, and an address no instance holds is released).
   */
  async update(
    p: Principal,
    address: string,
    b: { rdns?: string | null; reserved?: boolean },
  ): Promise<ApiIp> {
    if (b.rdns !== undefined)
      await this.checkForward(await this.inAccount(this.d.db, p, address, 'read_write'), b.rdns);
    return this.d.db.transaction(async (tx) => {
      let t = await this.inAccount(tx, p, address, 'read_write');
      if (b.rdns !== undefined) await this.setRdns(tx, p, t, b.rdns);
      if (b.reserved !== undefined) {
        const cur = t;
        if (!('row' in cur)) throw errors.reason(IPV4_ONLY);
        authz.requireUnrestricted(p);
        const row = cur.row;
        if (b.reserved) await this.reservations().reserveHeld(tx, p, row);
        else if (row.reserved === 1) {
          await this.reservations().unreserve(tx, p, row);
          // Released: the answer is the address as it was, no longer reserved.
          if (row.instance_id === null)
            return this.v4({ ...row, reserved: 0 }, undefined, undefined);
        }
        t = await this.inAccount(tx, p, address, 'read_write');
      }
      return this.shape(tx, t);
    });
  }
}
