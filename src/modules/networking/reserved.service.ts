import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { billInstance, billReservedIp } from '../billing/billables.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { insertIp } from '../compute/compute.repository.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { dropTags, setTags } from '../tags/tags.repository.js';
import type { IpAllocator } from './ip-allocator.js';
import type { IpRow } from './ips.repository.js';
import {
  type ApiReservedIp,
  assertReservationRoom,
  findReserved,
  ipRef,
  RESERVED_FILTERS,
  RESERVED_TYPE,
  toApiReserved,
} from './reserved.repository.js';

type XFilter = string | string[] | undefined;

export interface ReservedDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  ips: IpAllocator;
  catalogue: CatalogueService;
  /** Reserved IPv4 addresses an account may hold (STRATUS_RESERVED_IPV4_LIMIT). */
  limit: number;
}

/** Tags as instances take them: 3-50 characters each. */
function checkTags(fe: FieldErrors, tags: readonly string[] | undefined): void {
  for (const tag of tags ?? [])
    if (tag.length < 3 || tag.length > 50) fe.add('tags', 'Length must be 3-50 characters');
}

/**
 * Reserved IPv4 addresses (`/networking/reserved/ips`): public addresses the account keeps
 * whether an instance holds them or not, billed hourly while reserved, with tags. An instance
 * takes one at create (`ipv4`) or later (`POST …/ips` with `address`); when the instance goes,
 * the address stays reserved. Reserving, tagging and releasing are for unrestricted users; a
 * restricted user sees the reserved addresses of the instances it may see.
 */
export class ReservedIpsService {
  constructor(private readonly d: ReservedDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiReservedIp>> {
    const { db } = this.d;
    let base = db.db
      .selectFrom('ip_addresses')
      .where('ip_addresses.account_id', '=', p.accountId)
      .where('ip_addresses.reserved', '=', 1);
    const vis = authz.visible(p, 'compute', 'ip_addresses.instance_id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('ip_addresses'),
      compileFilter(xf, RESERVED_FILTERS, db.dialect),
      params,
      { idColumn: 'ip_addresses.id' },
      (r: IpRow) => r,
    );
    return { ...page, data: await toApiReserved(db, page.data) };
  }

  /** A reserved address the caller may see; 404 otherwise (also for any other address). */
  private async visible(db: Database, p: Principal, address: string, lock = false) {
    const row = await findReserved(db, p.accountId, address, lock);
    if (!row) throw errors.notFound();
    if (p.restricted) {
      if (row.instance_id === null) throw errors.notFound();
      if ((await authz.permissionOn(db, p, 'compute', row.instance_id)) === null)
        throw errors.notFound();
    }
    return row;
  }

  async get(p: Principal, address: string): Promise<ApiReservedIp> {
    const [api] = await toApiReserved(this.d.db, [await this.visible(this.d.db, p, address)]);
    return api as ApiReservedIp;
  }

  /** Reserves a new public address in a region (within the account's limit). */
  async reserve(p: Principal, b: { region: string; tags?: string[] }): Promise<ApiReservedIp> {
    authz.requireUnrestricted(p);
    const fe = new FieldErrors();
    const region = this.d.catalogue.region(b.region);
    if (!region?.capabilities.includes('Computes') || !this.d.ips.hasRegion(b.region))
      fe.add('region', 'region is not valid');
    checkTags(fe, b.tags);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const row = await this.reserveNew(tx, p, b.region, null);
      if (b.tags && b.tags.length > 0)
        await setTags(tx, p.accountId, RESERVED_TYPE, row.id, b.tags);
      const [api] = await toApiReserved(tx, [row]);
      return api as ApiReservedIp;
    });
  }

  /**
   * A new reserved address in `region`, held by `instanceId` (or by nothing), inside the caller's
   * transaction: the limit checked, the address billed, `reserved_ip_create` written.
   */
  async reserveNew(
    tx: Database,
    p: Principal,
    region: string,
    instance: { id: number; label: string } | null,
  ): Promise<IpRow> {
    await assertReservationRoom(tx, p.accountId, this.d.limit);
    const now = this.now();
    const ip = await this.d.ips.next(tx, region, 'public');
    const { id } = await insertIp(
      tx,
      { accountId: p.accountId, instanceId: instance?.id ?? null, region, kind: 'public', ip },
      now,
    );
    await tx.db.updateTable('ip_addresses').set({ reserved: 1 }).where('id', '=', id).execute();
    await billReservedIp(tx, id, now);
    if (instance) await billInstance(tx, instance.id, now);
    await this.d.events.record(tx, {
      accountId: p.accountId,
      action: 'reserved_ip_create',
      entity: ipRef(ip.address, id),
      secondaryEntity: instance ? entityRefs.compute(instance.id, instance.label) : null,
      status: 'notification',
      username: p.username,
    });
    return tx.db
      .selectFrom('ip_addresses')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  /** Makes an address an instance holds reserved (`PUT /networking/ips/{address}` reserved). */
  async reserveHeld(tx: Database, p: Principal, row: IpRow): Promise<void> {
    if (row.reserved === 1) return;
    if (row.kind !== 'public')
      throw errors.invalidField('reserved', 'Cannot reserve a private address.');
    await assertReservationRoom(tx, p.accountId, this.d.limit);
    const now = this.now();
    await tx.db.updateTable('ip_addresses').set({ reserved: 1 }).where('id', '=', row.id).execute();
    await billReservedIp(tx, row.id, now);
    if (row.instance_id !== null) await billInstance(tx, row.instance_id, now);
    await this.d.events.record(tx, {
      accountId: p.accountId,
      action: 'reserved_ip_create',
      entity: ipRef(row.address, row.id),
      status: 'notification',
      username: p.username,
    });
  }

  /**
   * Ends a reservation: an address an instance holds stays on it (ephemeral again); an unassigned
   * one is released. Its tags go with the reservation.
   */
  async unreserve(tx: Database, p: Principal, row: IpRow): Promise<void> {
    const now = this.now();
    if (row.instance_id === null) {
      await tx.db.deleteFrom('ip_addresses').where('id', '=', row.id).execute();
    } else {
      await tx.db
        .updateTable('ip_addresses')
        .set({ reserved: 0 })
        .where('id', '=', row.id)
        .execute();
      await billInstance(tx, row.instance_id, now);
    }
    await dropTags(tx, RESERVED_TYPE, row.id);
    await billReservedIp(tx, row.id, now);
    await this.d.events.record(tx, {
      accountId: p.accountId,
      action: 'reserved_ip_delete',
      entity: ipRef(row.address, row.id),
      status: 'notification',
      username: p.username,
    });
  }

  /** `PUT /networking/reserved/ips/{address}`: replaces the tags. */
  async update(p: Principal, address: string, b: { tags?: string[] }): Promise<ApiReservedIp> {
    authz.requireUnrestricted(p);
    const fe = new FieldErrors();
    checkTags(fe, b.tags);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const row = await this.visible(tx, p, address, true);
      if (b.tags !== undefined) await setTags(tx, p.accountId, RESERVED_TYPE, row.id, b.tags);
      const [api] = await toApiReserved(tx, [row]);
      return api as ApiReservedIp;
    });
  }

  /** `DELETE /networking/reserved/ips/{address}`: ends the reservation. */
  async delete(p: Principal, address: string): Promise<void> {
    authz.requireUnrestricted(p);
    await this.d.db.transaction(async (tx) => {
      await this.unreserve(tx, p, await this.visible(tx, p, address, true));
    });
  }
}
