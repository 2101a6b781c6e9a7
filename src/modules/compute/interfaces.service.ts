import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { isIpv4 } from '../../lib/ip.js';
import { isoSeconds } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  type ApiInterface,
  type ConfigRow,
  findConfig,
  type InstanceRow,
  type InterfaceRow,
  instanceIpams,
  interfacesOf,
  interfaceValues,
  normalizedOf,
  natAnyOf,
  toApiInterface,
} from './compute.repository.js';
import type { AddInterfaceBody, UpdateInterfaceBody } from './configs.schemas.js';
import type { InstancesService } from './instances.service.js';
import { bodyField, vpcInterfaceChecker } from '../vpcs/vpc-interfaces.js';
import { checkAddition, checkInterface, checkVlanRegion } from './interfaces.rules.js';
import { refuseIfSubresourcesLocked } from '../locks/locks.repository.js';
import { COMPUTE_GENERATION_PROFILE } from './configs.service.js';
import { storeInterfaceIpv6 } from '../vpcs/vpc-ipv6.rules.js';

type AddBody = Static<typeof AddInterfaceBody>;
type UpdateBody = Static<typeof UpdateInterfaceBody>;

const blank = (v: string | null | undefined) => v === undefined || v === null || v === '';

/** The instance whose vpc interfaces are checked (src/modules/vpcs/vpc-interfaces.ts). */
const vpcTarget = (inst: InstanceRow, configId: number, interfaceId?: number) => ({
  accountId: inst.account_id,
  instanceId: inst.id,
  region: inst.region,
  creating: false,
  configId,
  ...(interfaceId !== undefined ? { interfaceId } : {}),
});

/** Whether the config's interfaces are active: the instance runs with the config. */
const activeIn = (inst: InstanceRow, configId: number) =>
  inst.status === 'running' && inst.last_booted_config_id === configId;

/** Interfaces of a config: list, add, view, update, delete and reorder. */
export class InterfacesService {
  constructor(
    private readonly d: { db: Database; clock: Clock; events: EventWriter },
    private readonly instances: InstancesService,
  ) {}

  private async context(
    db: Database,
    p: Principal,
    computeId: number,
    configId: number,
    level: 'read_only' | 'read_write',
  ) {
    const lock = level === 'read_write';
    const inst = await this.instances.load(db, p, computeId, level, lock);
    const config = await findConfig(db, inst.id, configId, lock);
    if (!config) throw errors.notFound();
    const rows = (await interfacesOf(db, [config.id])).get(config.id) ?? [];
    return { inst, config, rows };
  }

  private async changed(
    db: Database,
    p: Principal,
    inst: InstanceRow,
    config: ConfigRow,
  ): Promise<void> {
    await db.db
      .updateTable('configs')
      .set({ updated: isoSeconds(this.d.clock.nowMs()) })
      .where('id', '=', config.id)
      .execute();
    await this.d.events.record(db, {
      accountId: p.accountId,
      action: 'compute_config_update',
      entity: entityRefs.compute(inst.id, inst.label),
      status: 'notification',
      username: p.username,
    });
  }

  private async one(
    db: Database,
    inst: InstanceRow,
    config: ConfigRow,
    id: number,
  ): Promise<ApiInterface> {
    const row = await db.db
      .selectFrom('config_interfaces')
      .selectAll()
      .where('id', '=', id)
      .where('config_id', '=', config.id)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return toApiInterface(row, activeIn(inst, config.id), await natAnyOf(db, inst.id, [row]));
  }

  private async clearPrimary(db: Database, configId: number): Promise<void> {
    await db.db
      .updateTable('config_interfaces')
      .set({ is_primary: 0 })
      .where('config_id', '=', configId)
      .execute();
  }

  /** The interfaces in order (eth0, eth1, eth2): a bare array. */
  async list(p: Principal, computeId: number, configId: number): Promise<ApiInterface[]> {
    const { inst, config, rows } = await this.context(
      this.d.db,
      p,
      computeId,
      configId,
      'read_only',
    );
    const natAny = await natAnyOf(this.d.db, inst.id, rows);
    return rows.map((r) => toApiInterface(r, activeIn(inst, config.id), natAny));
  }

  async get(
    p: Principal,
    computeId: number,
    configId: number,
    interfaceId: number,
  ): Promise<ApiInterface> {
    const { inst, config } = await this.context(this.d.db, p, computeId, configId, 'read_only');
    return this.one(this.d.db, inst, config, interfaceId);
  }

  /** Add: appended last; `primary` true takes primary from the old primary. */
  async add(p: Principal, computeId: number, configId: number, b: AddBody): Promise<ApiInterface> {
    return this.d.db.transaction(async (tx) => {
      const { inst, config, rows } = await this.context(tx, p, computeId, configId, 'read_write');
      if (inst.interface_generation === 'compute') throw errors.reason(COMPUTE_GENERATION_PROFILE);
      const fe = new FieldErrors();
      const vpc = await vpcInterfaceChecker(tx, inst.account_id, [b]);
      const added = checkInterface(fe, '', b, { creating: false, subnetExists: vpc.subnetExists });
      checkAddition(fe, added, rows.map(normalizedOf), await instanceIpams(tx, inst.id));
      checkVlanRegion(fe, 'purpose', added.purpose, inst.region);
      await vpc.complete(fe, bodyField, [added], vpcTarget(inst, config.id));
      fe.throwIfAny();
      if (added.primary) await this.clearPrimary(tx, config.id);
      const { id } = await tx.db
        .insertInto('config_interfaces')
        .values(interfaceValues(config.id, inst.id, rows.length, added))
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.changed(tx, p, inst, config);
      return this.one(tx, inst, config, id);
    });
  }

  /** Update: not vlan interfaces; public ones only `primary`; vpc ones `primary`, `ipv4`, `ip_ranges`. */
  async update(
    p: Principal,
    computeId: number,
    configId: number,
    interfaceId: number,
    b: UpdateBody,
  ): Promise<ApiInterface> {
    return this.d.db.transaction(async (tx) => {
      const { inst, config, rows } = await this.context(tx, p, computeId, configId, 'read_write');
      const row = rows.find((r) => r.id === interfaceId);
      if (!row) throw errors.notFound();
      if (row.purpose === 'vlan')
        throw errors.reason('A vlan interface cannot be updated; delete it and add a new one.');
      const fe = new FieldErrors();
      const set: Partial<Omit<InterfaceRow, 'id'>> = {};
      if (row.purpose === 'public') {
        const onlyPrimary = 'Only primary can be updated for a public interface';
        if (b.ipv4 && (!blank(b.ipv4.vpc) || !blank(b.ipv4.nat_1_1))) fe.add('ipv4', onlyPrimary);
        if (b.ip_ranges !== undefined && b.ip_ranges !== null) fe.add('ip_ranges', onlyPrimary);
      } else await this.checkVpcChanges(tx, fe, inst, row, b, set);
      fe.throwIfAny();
      if (b.primary === true) await this.clearPrimary(tx, config.id);
      if (b.primary !== undefined) set.is_primary = b.primary ? 1 : 0;
      if (Object.keys(set).length > 0)
        await tx.db.updateTable('config_interfaces').set(set).where('id', '=', row.id).execute();
      await this.changed(tx, p, inst, config);
      return this.one(tx, inst, config, row.id);
    });
  }

  /**
   * A vpc interface's `ipv4` and `ip_ranges`, checked against its subnet: `ipv4.vpc` replaced when
   * given (null or empty keeps the address), `nat_1_1` replaced when given (null or empty: none),
   * `ip_ranges` replaced when given ([] or null clears).
   */
  private async checkVpcChanges(
    tx: Database,
    fe: FieldErrors,
    inst: InstanceRow,
    row: InterfaceRow,
    b: UpdateBody,
    set: Partial<Omit<InterfaceRow, 'id'>>,
  ): Promise<void> {
    const next = normalizedOf(row);
    if (!blank(b.ipv4?.vpc)) {
      const vpc = b.ipv4?.vpc as string;
      if (!isIpv4(vpc)) fe.add('ipv4.vpc', 'ipv4.vpc must be an IPv4 address');
      next.ipv4_vpc = vpc;
    }
    if (b.ipv4?.nat_1_1 !== undefined) {
      const nat = blank(b.ipv4.nat_1_1) ? null : (b.ipv4.nat_1_1 as string);
      if (nat !== null && nat !== 'any' && !isIpv4(nat))
        fe.add('ipv4.nat_1_1', 'nat_1_1 must be "any" or an IPv4 address');
      next.ipv4_nat_1_1 = nat;
    }
    if (b.ip_ranges !== undefined) next.ip_ranges = b.ip_ranges ?? [];
    if (b.ipv6 !== undefined && b.ipv6 !== null) next.ipv6_request = b.ipv6;
    const vpc = await vpcInterfaceChecker(tx, inst.account_id, [next]);
    await vpc.complete(fe, bodyField, [next], vpcTarget(inst, row.config_id, row.id));
    set.ipv4_vpc = next.ipv4_vpc;
    set.ipv4_nat_1_1 = next.ipv4_nat_1_1;
    set.ip_ranges = next.ip_ranges === null ? null : JSON.stringify(next.ip_ranges);
    set.ipv6 = storeInterfaceIpv6(next.ipv6);
    if (next.vpc_id !== undefined) set.vpc_id = next.vpc_id;
  }

  /** Delete: not an active interface (the instance runs with its config); the rest move up. */
  async delete(
    p: Principal,
    computeId: number,
    configId: number,
    interfaceId: number,
  ): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const { inst, config, rows } = await this.context(tx, p, computeId, configId, 'read_write');
      const row = rows.find((r) => r.id === interfaceId);
      if (!row) throw errors.notFound();
      await refuseIfSubresourcesLocked(tx, 'compute', inst.id, 'the interfaces');
      if (activeIn(inst, config.id)) {
        throw errors.reason(
          'An active interface cannot be deleted; shut the instance down or reboot it into another profile first.',
        );
      }
      await tx.db.deleteFrom('config_interfaces').where('id', '=', row.id).execute();
      await this.renumber(
        tx,
        rows.filter((r) => r.id !== row.id).map((r) => r.id),
      );
      await this.changed(tx, p, inst, config);
    });
  }

  /** Reorder: `ids` lists every interface of the config once; not while the instance runs with it. */
  async order(p: Principal, computeId: number, configId: number, ids: number[]): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const { inst, config, rows } = await this.context(tx, p, computeId, configId, 'read_write');
      const current = new Set(rows.map((r) => r.id));
      if (
        ids.length !== current.size ||
        new Set(ids).size !== ids.length ||
        ids.some((id) => !current.has(id))
      ) {
        throw errors.invalidField(
          'ids',
          'ids must list every interface of the profile exactly once',
        );
      }
      if (rows.length > 0 && activeIn(inst, config.id)) {
        throw errors.reason(
          'The instance is running with this profile; shut it down before reordering its interfaces.',
        );
      }
      await this.renumber(tx, ids);
      await this.changed(tx, p, inst, config);
    });
  }

  private async renumber(db: Database, ids: readonly number[]): Promise<void> {
    for (const [position, id] of ids.entries()) {
      await db.db.updateTable('config_interfaces').set({ position }).where('id', '=', id).execute();
    }
  }
}
