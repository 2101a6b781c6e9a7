import { authz, type Permission } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import { grantsScope } from '../../auth/scopes.js';
import type { Database } from '../../db/database.js';
import { rowStatement } from '../../db/statement.js';
import { billVolume } from '../billing/billables.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import {
  type Devices,
  type DeviceSlot,
  findInstance,
  type InstanceRow,
} from '../compute/compute.repository.js';
import { chooseConfig } from '../compute/power.service.js';
import { type EntityRef, entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { dropTags, setTags } from '../tags/tags.repository.js';
import { type VolumeOp, volumeJob } from './volumes.jobs.js';
import {
  countAttached,
  devicesOf,
  findVolume,
  freeSlot,
  removeFromConfigs,
  toApiVolumes,
  VOLUME_FILTERS,
  type VolumeRow,
} from './volumes.repository.js';
import { attachLimitProblem, VOLUME_SIZE_DEFAULT } from './volumes.rules.js';
import type { ApiVolume, AttachVolume, CreateVolume, UpdateVolume } from './volumes.schemas.js';
import { refuseIfLocked } from '../locks/locks.repository.js';
import type { VolumesTable } from './volumes.table.js';

type XFilter = string | string[] | undefined;

/** Where an attachment that persists across boots goes: a config and one of its free slots. */
interface Placement {
  configId: number;
  devices: Devices;
  slot: DeviceSlot;
}

export interface VolumeDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  catalogue: CatalogueService;
}

const BLOCK_STORAGE = 'Block Storage';
/** The region capability that lets a volume be created with `encryption: enabled`. */
export const BLOCK_STORAGE_ENCRYPTION = 'Block Storage Encryption';
const BSE_UNAVAILABLE = 'Block Storage Encryption is not available in this region';

/** A created volume's row (built once per dialect: the create is a hot path). */
const insertVolume = rowStatement(
  'volumes.insert',
  [
    'account_id',
    'label',
    'region',
    'size',
    'hardware_type',
    'encryption',
    'compute_id',
    'persist_across_boots',
    'created',
    'updated',
  ],
  ({ db }, row: Omit<VolumesTable, 'id' | 'status'> & { encryption: string }) =>
    db
      .insertInto('volumes')
      .values({ ...row, status: 'creating' })
      .returningAll(),
);

/**
 * Block storage volumes: create, list, view, update, delete, attach, detach, clone and resize.
 * Attachments lock the volume row, then the instance row, and count inside that transaction, so
 * concurrent attaches serialise on PostgreSQL (SQLite has one writer anyway).
 */
export class VolumesService {
  constructor(private readonly d: VolumeDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private async one(db: Database, id: number): Promise<ApiVolume> {
    const row = await db.db
      .selectFrom('volumes')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const [api] = await toApiVolumes(db, [row]);
    return api as ApiVolume;
  }

  /** A volume the caller may see (404 otherwise), checked for the given permission. */
  private async load(
    db: Database,
    p: Principal,
    id: number,
    level: Permission,
    lock = false,
  ): Promise<VolumeRow> {
    const row = await findVolume(db, p.accountId, id, lock);
    if (!row) throw errors.notFound();
    await authz.requireEntity(db, p, 'volume', id, level);
    return row;
  }

  /** 400 `Volume busy.` unless the volume is active with no work under way. */
  private async assertIdle(db: Database, row: VolumeRow): Promise<void> {
    if (row.status !== 'active') throw errors.busy('Volume');
    await this.d.queue.assertIdle(db, 'volume', row.id, 'Volume');
  }

  /** The instance named by a body's `compute_id`, locked, with read_write (400 if unknown or hidden). */
  private async instanceFor(db: Database, p: Principal, computeId: number): Promise<InstanceRow> {
    const inst = await findInstance(db, p.accountId, computeId, true);
    const have = inst ? await authz.permissionOn(db, p, 'compute', computeId) : null;
    if (!inst || have === null) throw errors.invalidField('compute_id', 'Compute not found');
    if (have !== 'read_write') throw errors.unauthorized();
    if (inst.status === 'deleting') throw errors.busy('Compute');
    return inst;
  }

  private async secondary(db: Database, computeId: number | null): Promise<EntityRef | null> {
    if (computeId === null) return null;
    const inst = await db.db
      .selectFrom('instances')
      .select(['id', 'label'])
      .where('id', '=', computeId)
      .executeTakeFirst();
    return inst ? entityRefs.compute(inst.id, inst.label) : null;
  }

  /**
   * Checks that one more volume may be attached to `inst` and, when it persists across boots,
   * finds its config (`config_id`, else the compute rule: last booted, else the only one) and a
   * free device slot. The caller holds the instance's row lock.
   */
  private async plan(
    db: Database,
    inst: InstanceRow,
    configId: number | undefined,
    persist: boolean,
  ): Promise<Placement | null> {
    const memory = this.d.catalogue.type(inst.type)?.memory ?? 0;
    const problem = attachLimitProblem(memory, await countAttached(db, inst.id), persist);
    if (problem) {
      throw problem.field
        ? errors.invalidField(problem.field, problem.reason)
        : errors.reason(problem.reason);
    }
    if (!persist) {
      // Not added to a config; a config_id given must still belong to the instance.
      if (configId !== undefined) await chooseConfig(db, inst, configId);
      return null;
    }
    if (configId === undefined) {
      const any = await db.db
        .selectFrom('configs')
        .select('id')
        .where('instance_id', '=', inst.id)
        .executeTakeFirst();
      if (!any) {
        throw errors.invalidField(
          'config_id',
          'The compute instance has no configuration profile to attach the volume to.',
        );
      }
    }
    const chosen = await chooseConfig(db, inst, configId);
    const cfg = await db.db
      .selectFrom('configs')
      .select('devices')
      .where('id', '=', chosen)
      .executeTakeFirstOrThrow();
    const devices = devicesOf(cfg.devices);
    const slot = freeSlot(devices);
    if (!slot)
      throw errors.invalidField('config_id', 'The configuration profile has no free device slot.');
    return { configId: chosen, devices, slot };
  }

  private async place(
    db: Database,
    placement: Placement | null,
    volumeId: number,
    now: string,
  ): Promise<void> {
    if (!placement) return;
    placement.devices[placement.slot] = { volume_id: volumeId };
    await db.db
      .updateTable('configs')
      .set({ devices: JSON.stringify(placement.devices), updated: now })
      .where('id', '=', placement.configId)
      .execute();
  }

  private async startWork(
    db: Database,
    p: Principal,
    volumeId: number,
    op: VolumeOp,
    eventId: number,
    entityId: number,
  ) {
    await this.d.queue.enqueue(
      db,
      volumeJob,
      {
        volumeId,
        accountId: p.accountId,
        op,
        eventId,
        step: 0,
        ...(entityId !== volumeId ? { sourceId: entityId } : {}),
      },
      { accountId: p.accountId, entity: { type: 'volume', id: entityId } },
    );
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiVolume>> {
    return this.page(p, undefined, params, xf);
  }

  /** The volumes attached to an instance (and visible to the caller). */
  async listForInstance(
    p: Principal,
    computeId: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiVolume>> {
    const inst = await findInstance(this.d.db, p.accountId, computeId);
    if (!inst) throw errors.notFound();
    await authz.requireEntity(this.d.db, p, 'compute', computeId, 'read_only');
    return this.page(p, computeId, params, xf);
  }

  private async page(
    p: Principal,
    computeId: number | undefined,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiVolume>> {
    const { db } = this.d;
    let base = db.db.selectFrom('volumes').where('volumes.account_id', '=', p.accountId);
    if (computeId !== undefined) base = base.where('volumes.compute_id', '=', computeId);
    const vis = authz.visible(p, 'volume', 'volumes.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('volumes'),
      compileFilter(xf, VOLUME_FILTERS, db.dialect),
      params,
      { idColumn: 'volumes.id' },
      (r: VolumeRow) => r,
    );
    return { ...page, data: await toApiVolumes(db, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiVolume> {
    await this.load(this.d.db, p, id, 'read_only');
    return this.one(this.d.db, id);
  }

  /** Create: unattached in a region, or attached to an instance (and one of its configs). */
  async create(p: Principal, b: CreateVolume): Promise<ApiVolume> {
    const { catalogue } = this.d;
    authz.requireGlobal(p, 'add_volumes');
    const fe = new FieldErrors();
    if (b.compute_id === undefined) {
      if (b.region === undefined)
        fe.add('region', 'region is required when compute_id is not given');
      if (b.config_id !== undefined)
        fe.add('config_id', 'config_id can only be given with a compute_id');
    }
    if (b.region !== undefined) {
      if (!catalogue.region(b.region)) fe.add('region', 'region is not valid');
      else if (!catalogue.regionHas(b.region, BLOCK_STORAGE))
        fe.add('region', 'Block Storage is not available in this region');
    }
    if (
      b.encryption === 'enabled' &&
      b.region !== undefined &&
      catalogue.region(b.region) &&
      !catalogue.regionHas(b.region, BLOCK_STORAGE_ENCRYPTION)
    )
      fe.add('encryption', BSE_UNAVAILABLE);
    fe.throwIfAny();
    // @NOTE creating attached changes the instance's config: the token needs what attach needs.
    if (b.compute_id !== undefined && !grantsScope(p.scopes, 'computes:read_write'))
      throw errors.missingScope();

    return this.d.db.transaction(async (tx) => {
      const now = this.now();
      let inst: InstanceRow | undefined;
      let placement: Placement | null = null;
      if (b.compute_id !== undefined) {
        inst = await this.instanceFor(tx, p, b.compute_id);
        if (b.region !== undefined && b.region !== inst.region) {
          throw errors.invalidField('region', 'region must be the region of the compute instance');
        }
        if (!catalogue.regionHas(inst.region, BLOCK_STORAGE)) {
          throw errors.invalidField(
            'compute_id',
            "Block Storage is not available in the compute instance's region",
          );
        }
        if (
          b.encryption === 'enabled' &&
          !catalogue.regionHas(inst.region, BLOCK_STORAGE_ENCRYPTION)
        )
          throw errors.invalidField('encryption', BSE_UNAVAILABLE);
        placement = await this.plan(tx, inst, b.config_id, true);
      }
      const region = inst?.region ?? (b.region as string);
      const inserted = await insertVolume.first(tx, {
        account_id: p.accountId,
        label: b.label,
        region,
        size: b.size ?? VOLUME_SIZE_DEFAULT,
        hardware_type: catalogue.regionExtras(region)?.volume_hardware_type ?? 'nvme',
        encryption: b.encryption ?? 'disabled',
        compute_id: inst?.id ?? null,
        persist_across_boots: inst ? 1 : 0,
        created: now,
        updated: now,
      });
      if (!inserted) throw new Error('volumes.insert returned no row');
      const id = inserted.id;
      await billVolume(tx, id, now, inserted);
      await this.place(tx, placement, id, now);
      await authz.grantCreator(tx, p, 'volume', id);
      if (b.tags) await setTags(tx, p.accountId, 'volume', id, b.tags);
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'volume_create',
        entity: entityRefs.volume(id, b.label),
        secondaryEntity: inst ? entityRefs.compute(inst.id, inst.label) : null,
        status: 'scheduled',
        username: p.username,
      });
      await this.startWork(tx, p, id, 'create', eventId, id);
      // The row as inserted: nothing else in this transaction changed it.
      const [api] = await toApiVolumes(tx, [inserted], { tagged: (b.tags?.length ?? 0) > 0 });
      return api as ApiVolume;
    });
  }

  /** Update: `label` and `tags` only. */
  async update(p: Principal, id: number, b: UpdateVolume): Promise<ApiVolume> {
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      await tx.db
        .updateTable('volumes')
        .set({ ...(b.label !== undefined ? { label: b.label } : {}), updated: this.now() })
        .where('id', '=', id)
        .execute();
      if (b.tags !== undefined) await setTags(tx, p.accountId, 'volume', id, b.tags);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'volume_update',
        entity: entityRefs.volume(id, b.label ?? row.label),
        secondaryEntity: await this.secondary(tx, row.compute_id),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, id);
    });
  }

  /** Delete: irreversible; an attached volume leaves its instance's configs; refused while migrating. */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      await refuseIfLocked(tx, 'volume', id, 'delete');
      let inst: InstanceRow | undefined;
      if (row.compute_id !== null) {
        inst = await findInstance(tx, p.accountId, row.compute_id, true);
        // @NOTE volumes have no migration of their own here: an attached volume migrates with its instance.
        if (inst?.status === 'migrating')
          throw errors.reason('Volume cannot be deleted while it is migrating.');
      }
      await this.assertIdle(tx, row);
      const now = this.now();
      if (row.compute_id !== null) await removeFromConfigs(tx, row.compute_id, id, now);
      await dropTags(tx, 'volume', id);
      await authz.dropEntity(tx, 'volume', id);
      await tx.db.deleteFrom('volumes').where('id', '=', id).execute();
      await billVolume(tx, id, now);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'volume_delete',
        entity: entityRefs.volume(id, row.label),
        secondaryEntity: inst ? entityRefs.compute(inst.id, inst.label) : null,
        status: 'notification',
        username: p.username,
      });
    });
  }

  /** Attach to an instance of the same region, within the instance's volume limits. */
  async attach(p: Principal, id: number, b: AttachVolume): Promise<ApiVolume> {
    const persist = b.persist_across_boots ?? true;
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      const inst = await this.instanceFor(tx, p, b.compute_id);
      if (row.compute_id !== null)
        throw errors.reason('Volume is already attached to a compute instance.');
      await this.assertIdle(tx, row);
      if (row.region !== inst.region) {
        throw errors.invalidField(
          'compute_id',
          'Volume and compute instance must be in the same region.',
        );
      }
      const placement = await this.plan(tx, inst, b.config_id, persist);
      const now = this.now();
      await this.place(tx, placement, id, now);
      await tx.db
        .updateTable('volumes')
        .set({ compute_id: inst.id, persist_across_boots: persist ? 1 : 0, updated: now })
        .where('id', '=', id)
        .execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'volume_attach',
        entity: entityRefs.volume(id, row.label),
        secondaryEntity: entityRefs.compute(inst.id, inst.label),
        status: 'finished',
        username: p.username,
      });
      return this.one(tx, id);
    });
  }

  /** Detach: the volume leaves the instance and its configs' devices. */
  async detach(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      if (row.compute_id === null)
        throw errors.reason('Volume is not attached to a compute instance.');
      const inst = await findInstance(tx, p.accountId, row.compute_id, true);
      if (inst) await authz.requireEntity(tx, p, 'compute', inst.id, 'read_write');
      await this.assertIdle(tx, row);
      const now = this.now();
      await removeFromConfigs(tx, row.compute_id, id, now);
      await tx.db
        .updateTable('volumes')
        .set({ compute_id: null, persist_across_boots: 0, updated: now })
        .where('id', '=', id)
        .execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'volume_detach',
        entity: entityRefs.volume(id, row.label),
        secondaryEntity: inst ? entityRefs.compute(inst.id, inst.label) : null,
        status: 'finished',
        username: p.username,
      });
    });
  }

  /** Clone: a new, unattached volume of the same size and region; the source must be active. */
  async clone(p: Principal, id: number, label: string): Promise<ApiVolume> {
    authz.requireGlobal(p, 'add_volumes');
    return this.d.db.transaction(async (tx) => {
      const src = await this.load(tx, p, id, 'read_only', true);
      await this.assertIdle(tx, src);
      const now = this.now();
      const inserted = await tx.db
        .insertInto('volumes')
        .values({
          account_id: p.accountId,
          label,
          region: src.region,
          size: src.size,
          status: 'creating',
          hardware_type: src.hardware_type,
          // A clone is a copy of the source's blocks: it keeps their encryption.
          encryption: src.encryption ?? 'disabled',
          compute_id: null,
          persist_across_boots: 0,
          created: now,
          updated: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await authz.grantCreator(tx, p, 'volume', inserted.id);
      await billVolume(tx, inserted.id, now);
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'volume_clone',
        entity: entityRefs.volume(src.id, src.label),
        secondaryEntity: entityRefs.volume(inserted.id, label),
        status: 'scheduled',
        username: p.username,
      });
      // The job's entity is the source: it stays busy until the copy is done.
      await this.startWork(tx, p, inserted.id, 'clone', eventId, src.id);
      return this.one(tx, inserted.id);
    });
  }

  /** Resize: only up, only when active; `resizing` until the job ends. */
  async resize(p: Principal, id: number, size: number): Promise<ApiVolume> {
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      await this.assertIdle(tx, row);
      if (size <= row.size)
        throw errors.invalidField(
          'size',
          `Volumes can only be resized up (the volume is ${row.size} GiB).`,
        );
      await tx.db
        .updateTable('volumes')
        .set({ size, status: 'resizing', updated: this.now() })
        .where('id', '=', id)
        .execute();
      await billVolume(tx, id, this.now());
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'volume_resize',
        entity: entityRefs.volume(id, row.label),
        secondaryEntity: await this.secondary(tx, row.compute_id),
        status: 'scheduled',
        username: p.username,
      });
      await this.startWork(tx, p, id, 'resize', eventId, id);
      return this.one(tx, id);
    });
  }
}
