import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  type ApiConfig,
  CONFIG_FILTERS,
  type ConfigRow,
  configInUse,
  DEFAULT_HELPERS,
  DEVICE_SLOTS,
  type DeviceSlot,
  type Devices,
  findConfig,
  type InstanceRow,
  insertConfig,
  instanceIpams,
  parseDevices,
  replaceInterfaces,
  toApiConfigs,
} from './compute.repository.js';
import type { CreateConfigBody, DevicesRequest, UpdateConfigBody } from './configs.schemas.js';
import { listField, vpcInterfaceChecker } from '../vpcs/vpc-interfaces.js';
import type { InstancesService } from './instances.service.js';
import {
  checkInstanceIpams,
  checkInterfaces,
  checkVlanRegion,
  type NormalizedInterface,
} from './interfaces.rules.js';
import { refuseIfSubresourcesLocked } from '../locks/locks.repository.js';

type CreateBody = Static<typeof CreateConfigBody>;
type UpdateBody = Static<typeof UpdateConfigBody>;
type DevicesBody = Static<typeof DevicesRequest>;
type XFilter = string | string[] | undefined;

export const DEFAULT_KERNEL = 'compute/latest-64bit';
export const DEFAULT_ROOT_DEVICE = '/dev/sda';
const ROOT_DEVICE_PATTERN = /^[a-zA-Z0-9/_-]+$/;
/** Slots a fullvirt config cannot use. */
const PARAVIRT_ONLY = new Set<DeviceSlot>(['sde', 'sdf', 'sdg', 'sdh']);
const FULLVIRT_SLOTS = 'sde to sdh are unavailable with virt_mode fullvirt';

export interface ConfigsDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  catalogue: CatalogueService;
}

/** Configuration profiles of an instance: list, create, view, update, delete. */
/** The reason a profile of an instance of the compute generation refuses interfaces. */
export const COMPUTE_GENERATION_PROFILE =
  'This instance uses interfaces of the compute generation (/interfaces); its configuration profiles have none';

export class ConfigsService {
  constructor(
    private readonly d: ConfigsDeps,
    private readonly instances: InstancesService,
  ) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private async one(db: Database, inst: InstanceRow, configId: number): Promise<ApiConfig> {
    const row = await findConfig(db, inst.id, configId);
    if (!row) throw errors.notFound();
    const [api] = await toApiConfigs(db, inst, [row]);
    return api as ApiConfig;
  }

  private event(
    db: Database,
    p: Principal,
    inst: InstanceRow,
    action: string,
    config?: { id: number; label: string },
  ) {
    return this.d.events.record(db, {
      accountId: p.accountId,
      action,
      entity: entityRefs.compute(inst.id, inst.label),
      // The real wire names the new config as the secondary entity of `compute_config_create`.
      ...(config ? { secondaryEntity: entityRefs.config(inst.id, config.id, config.label) } : {}),
      status: 'notification',
      username: p.username,
    });
  }

  async list(
    p: Principal,
    computeId: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiConfig>> {
    const { db } = this.d;
    const inst = await this.instances.load(db, p, computeId, 'read_only');
    const page = await paginate(
      db.db.selectFrom('configs').where('configs.instance_id', '=', computeId),
      (qb) => qb.selectAll('configs'),
      compileFilter(xf, CONFIG_FILTERS, db.dialect),
      params,
      { idColumn: 'configs.id' },
      (r: ConfigRow) => r,
    );
    return { ...page, data: await toApiConfigs(db, inst, page.data) };
  }

  async get(p: Principal, computeId: number, configId: number): Promise<ApiConfig> {
    const inst = await this.instances.load(this.d.db, p, computeId, 'read_only');
    return this.one(this.d.db, inst, configId);
  }

  /**
   * Checks the devices: each slot empty or one disk of this instance or one volume attached to
   * it, nothing twice, `sde`..`sdh` empty in fullvirt.
   */
  private async checkDevices(
    db: Database,
    fe: FieldErrors,
    inst: InstanceRow,
    body: DevicesBody,
    virtMode: string,
  ): Promise<Devices> {
    const disks = new Set(
      (
        await db.db
          .selectFrom('disks')
          .select('id')
          .where('instance_id', '=', inst.id)
          .where('status', '<>', 'deleting')
          .execute()
      ).map((r) => r.id),
    );
    const volumes = new Set(
      (
        await db.db.selectFrom('volumes').select('id').where('compute_id', '=', inst.id).execute()
      ).map((r) => r.id),
    );
    const out = {} as Devices;
    const used = new Set<string>();
    for (const slot of DEVICE_SLOTS) {
      out[slot] = null;
      const dev = body[slot];
      const diskId = dev?.disk_id ?? null;
      const volumeId = dev?.volume_id ?? null;
      if (diskId === null && volumeId === null) continue;
      const at = `devices.${slot}`;
      if (diskId !== null && volumeId !== null) {
        fe.add(at, 'A device is either a disk_id or a volume_id, not both');
        continue;
      }
      if (virtMode === 'fullvirt' && PARAVIRT_ONLY.has(slot)) {
        fe.add(at, FULLVIRT_SLOTS);
        continue;
      }
      const key = diskId !== null ? `disk:${diskId}` : `volume:${volumeId}`;
      if (used.has(key)) fe.add(at, 'A disk or volume can be used only once in a config');
      used.add(key);
      if (diskId !== null) {
        if (!disks.has(diskId)) fe.add(`${at}.disk_id`, 'Disk not found on this instance');
        out[slot] = { disk_id: diskId };
      } else {
        if (!volumes.has(volumeId as number))
          fe.add(`${at}.volume_id`, 'Volume not found or not attached to this instance');
        out[slot] = { volume_id: volumeId as number };
      }
    }
    return out;
  }

  /**
   * The interface list of a create or an update (none on an instance of the compute generation): null/omitted: none (create) or unchanged
   * (update); [] a single public interface on create (the reference) and no interface at all on
   * update (the real service: SDKs empty a config this way before adding interfaces one by one);
   * otherwise the list, checked by the purpose rules, its vlan addresses unused by the
   * instance's other configs.
   */
  private async checkInterfaceList(
    db: Database,
    fe: FieldErrors,
    inst: InstanceRow,
    list: UpdateBody['interfaces'],
    configId: number | undefined,
  ): Promise<NormalizedInterface[] | undefined> {
    if (list === undefined || list === null) return undefined;
    if (inst.interface_generation === 'compute') {
      // Its interfaces are its own (`/interfaces`), never a profile's.
      if (list.length > 0) fe.add('interfaces', COMPUTE_GENERATION_PROFILE);
      return undefined;
    }
    const input = list.length === 0 && configId === undefined ? [{ purpose: 'public' }] : list;
    const vpc = await vpcInterfaceChecker(db, inst.account_id, input);
    const out = checkInterfaces(fe, 'interfaces', input, {
      creating: false,
      subnetExists: vpc.subnetExists,
    });
    for (const [n, i] of out.entries())
      checkVlanRegion(fe, `interfaces.${n}.purpose`, i.purpose, inst.region);
    checkInstanceIpams(fe, 'interfaces', out, await instanceIpams(db, inst.id, configId));
    await vpc.complete(fe, listField('interfaces'), out, {
      accountId: inst.account_id,
      instanceId: inst.id,
      region: inst.region,
      creating: false,
    });
    return out;
  }

  /** The scalar fields shared by create and update. */
  private checkFields(fe: FieldErrors, inst: InstanceRow, b: UpdateBody): void {
    if (b.kernel !== undefined && !this.d.catalogue.kernel(b.kernel))
      fe.add('kernel', 'kernel is not valid');
    const memory = this.d.catalogue.type(inst.type)?.memory ?? 0;
    if (b.memory_limit !== undefined && b.memory_limit > memory) {
      fe.add(
        'memory_limit',
        `memory_limit must be between 0 and ${memory} (0: all of the plan's memory)`,
      );
    }
  }

  /** `root_device` as the reference has it: a missing or malformed value becomes `/dev/sda`. */
  private rootDevice(v: string | undefined): string {
    return v !== undefined && ROOT_DEVICE_PATTERN.test(v) ? v : DEFAULT_ROOT_DEVICE;
  }

  async create(p: Principal, computeId: number, b: CreateBody): Promise<ApiConfig> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const fe = new FieldErrors();
      this.checkFields(fe, inst, b);
      const virtMode = b.virt_mode ?? 'paravirt';
      const devices = await this.checkDevices(tx, fe, inst, b.devices, virtMode);
      const interfaces = await this.checkInterfaceList(tx, fe, inst, b.interfaces, undefined);
      fe.throwIfAny();
      const id = await insertConfig(
        tx,
        {
          instanceId: inst.id,
          accountId: p.accountId,
          label: b.label,
          kernel: b.kernel ?? DEFAULT_KERNEL,
          comments: b.comments ?? null,
          memoryLimit: b.memory_limit ?? 0,
          runLevel: b.run_level ?? 'default',
          virtMode,
          rootDevice: this.rootDevice(b.root_device),
          helpers: { ...DEFAULT_HELPERS, ...(b.helpers ?? {}) },
          devices,
        },
        this.now(),
      );
      if (interfaces) await replaceInterfaces(tx, id, inst.id, interfaces);
      await this.event(tx, p, inst, 'compute_config_create', { id, label: b.label });
      return this.one(tx, inst, id);
    });
  }

  /** Update: every field optional; `devices` and `interfaces`, when given, replace the old ones. */
  async update(
    p: Principal,
    computeId: number,
    configId: number,
    b: UpdateBody,
  ): Promise<ApiConfig> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const row = await findConfig(tx, inst.id, configId, true);
      if (!row) throw errors.notFound();
      const fe = new FieldErrors();
      this.checkFields(fe, inst, b);
      const virtMode = b.virt_mode ?? row.virt_mode;
      let devices = parseDevices(row.devices);
      if (b.devices !== undefined)
        devices = await this.checkDevices(tx, fe, inst, b.devices, virtMode);
      else if (virtMode === 'fullvirt') {
        // Kept devices must suit a change to fullvirt too.
        for (const slot of PARAVIRT_ONLY)
          if (devices[slot] !== null) fe.add(`devices.${slot}`, FULLVIRT_SLOTS);
      }
      const interfaces = await this.checkInterfaceList(tx, fe, inst, b.interfaces, row.id);
      fe.throwIfAny();
      const helpers = {
        ...DEFAULT_HELPERS,
        ...parseJson<Partial<typeof DEFAULT_HELPERS>>(row.helpers, {}),
        ...(b.helpers ?? {}),
      };
      await tx.db
        .updateTable('configs')
        .set({
          ...(b.label !== undefined ? { label: b.label } : {}),
          ...(b.kernel !== undefined ? { kernel: b.kernel } : {}),
          ...(b.comments !== undefined ? { comments: b.comments } : {}),
          ...(b.memory_limit !== undefined ? { memory_limit: b.memory_limit } : {}),
          ...(b.run_level !== undefined ? { run_level: b.run_level } : {}),
          ...(b.root_device !== undefined ? { root_device: this.rootDevice(b.root_device) } : {}),
          virt_mode: virtMode,
          helpers: JSON.stringify(helpers),
          devices: JSON.stringify(devices),
          updated: this.now(),
        })
        .where('id', '=', row.id)
        .execute();
      if (interfaces) await replaceInterfaces(tx, row.id, inst.id, interfaces);
      await this.event(tx, p, inst, 'compute_config_update');
      return this.one(tx, inst, row.id);
    });
  }

  /**
   * Delete: not while work is under way on the instance, nor while it runs with this config.
   * Deleting the last booted config forgets it.
   */
  async delete(p: Principal, computeId: number, configId: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const row = await findConfig(tx, inst.id, configId, true);
      if (!row) throw errors.notFound();
      await refuseIfSubresourcesLocked(tx, 'compute', inst.id, 'the configuration profiles');
      await this.instances.assertIdle(tx, inst);
      if (configInUse(inst, row.id)) {
        throw errors.reason(
          'The instance is running with this configuration profile; shut it down before deleting the profile.',
        );
      }
      await tx.db.deleteFrom('config_interfaces').where('config_id', '=', row.id).execute();
      await tx.db.deleteFrom('configs').where('id', '=', row.id).execute();
      if (inst.last_booted_config_id === row.id) {
        await tx.db
          .updateTable('instances')
          .set({ last_booted_config_id: null })
          .where('id', '=', inst.id)
          .execute();
      }
      await this.event(tx, p, inst, 'compute_config_delete');
    });
  }
}
