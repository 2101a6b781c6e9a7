import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { ComputeDriver } from '../../machines/driver.js';
import { imageProblem, recordDiskSource, recordSeed } from './machines.seam.js';
import {
  type ApiDisk,
  allocatedDiskMb,
  DEVICE_SLOTS,
  DISK_FILTERS,
  type DiskRow,
  diskInUse,
  findDisk,
  type InstanceRow,
  insertDisk,
  parseDevices,
  toApiDisk,
} from './compute.repository.js';
import { recordDeployment, checkStackScript } from '../stackscripts/stackscripts.deploy.js';
import { checkPassword } from './compute.rules.js';
import { type DiskJobPayload, diskJob } from './disks.jobs.js';
import type { CreateDiskBody } from './disks.schemas.js';
import type { InstancesService } from './instances.service.js';
import { checkDeployCredentials } from './ssh.js';
import { refuseIfSubresourcesLocked } from '../locks/locks.repository.js';

type CreateBody = Static<typeof CreateDiskBody>;
type XFilter = string | string[] | undefined;

export interface DisksDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  catalogue: CatalogueService;
  machines: ComputeDriver;
}

const MAX_LABEL = 48;

/** Disks of an instance: list, create, view, relabel, delete, clone, resize, password reset. */
export class DisksService {
  constructor(
    private readonly d: DisksDeps,
    private readonly instances: InstancesService,
  ) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** A disk of an instance the caller may see (404 otherwise). */
  private async loadDisk(
    db: Database,
    inst: InstanceRow,
    diskId: number,
    lock = false,
  ): Promise<DiskRow> {
    const disk = await findDisk(db, inst.id, diskId, lock);
    if (!disk) throw errors.notFound();
    return disk;
  }

  /** 400 `Disk busy.` while the disk has work under way or is not ready. */
  private async assertDiskIdle(db: Database, disk: DiskRow): Promise<void> {
    if (disk.status !== 'ready') throw errors.busy('Disk');
    await this.d.queue.assertIdle(db, 'disk', disk.id, 'Disk');
  }

  /** Free MB of the instance's plan storage (without `exceptDiskId`). */
  private async freeMb(db: Database, inst: InstanceRow, exceptDiskId?: number): Promise<number> {
    const total = this.d.catalogue.type(inst.type)?.disk ?? 0;
    return total - (await allocatedDiskMb(db, inst.id, exceptDiskId));
  }

  private async enqueue(
    db: Database,
    p: Principal,
    inst: InstanceRow,
    job: Omit<DiskJobPayload, 'step' | 'accountId' | 'instanceId'>,
    busyDiskId: number,
  ) {
    await this.d.queue.enqueue(
      db,
      diskJob,
      { ...job, instanceId: inst.id, accountId: p.accountId, step: 0 },
      { accountId: p.accountId, entity: { type: 'disk', id: busyDiskId } },
    );
  }

  private event(
    db: Database,
    p: Principal,
    inst: InstanceRow,
    action: string,
    disk: Pick<DiskRow, 'id' | 'label'>,
    status: 'scheduled' | 'notification',
  ) {
    return this.d.events.record(db, {
      accountId: p.accountId,
      action,
      entity: entityRefs.compute(inst.id, inst.label),
      secondaryEntity: entityRefs.disk(inst.id, disk.id, disk.label),
      status,
      username: p.username,
    });
  }

  async list(
    p: Principal,
    computeId: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiDisk>> {
    const { db } = this.d;
    const inst = await this.instances.load(db, p, computeId, 'read_only');
    return paginate(
      db.db.selectFrom('disks').where('disks.instance_id', '=', computeId),
      (qb) => qb.selectAll('disks'),
      compileFilter(xf, DISK_FILTERS, db.dialect),
      params,
      { idColumn: 'disks.id' },
      (r: DiskRow) => toApiDisk(r, inst.disk_encryption),
    );
  }

  async get(p: Principal, computeId: number, diskId: number): Promise<ApiDisk> {
    const inst = await this.instances.load(this.d.db, p, computeId, 'read_only');
    return toApiDisk(await this.loadDisk(this.d.db, inst, diskId));
  }

  /**
   * Create: an empty disk (label required) or a disk deployed from an image (root_pass
   * required, at least the image's minimum size). It must fit in the plan's storage.
   */
  async create(p: Principal, computeId: number, b: CreateBody): Promise<ApiDisk> {
    const { catalogue } = this.d;
    const fe = new FieldErrors();
    const imageId = b.image ?? null;
    const image = imageId === null ? undefined : await catalogue.deployableImage(p, imageId, fe);
    const extras = image ? catalogue.imageExtras(image.id) : undefined;
    const minSize = image ? (extras?.min_disk_mb ?? image.size) : 1;
    if (image && b.size < minSize)
      fe.add('size', `The image needs a disk of at least ${minSize} MB`);
    if (imageId === null && b.label === undefined)
      fe.add('label', 'label is required for an empty disk');
    const keys = await checkDeployCredentials(this.d.db, fe, p, {
      imageId,
      imageFound: image !== undefined,
      ...b,
    });
    const missing = image ? imageProblem(this.d.machines, image.id) : undefined;
    if (missing) fe.add('image', missing);
    const stackscript = await checkStackScript(this.d.db, fe, p, b, imageId);

    return this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      fe.throwIfAny();
      await this.instances.assertIdle(tx, inst);
      const free = await this.freeMb(tx, inst);
      if (b.size > free)
        throw errors.invalidField(
          'size',
          `Not enough free space: ${free} MB of the plan's storage is available`,
        );

      const label = b.label ?? `${image?.label ?? 'New'} Disk`.slice(0, MAX_LABEL);
      const filesystem = b.filesystem ?? (image ? (extras?.filesystem ?? 'ext4') : 'ext4');
      const id = await insertDisk(
        tx,
        {
          instanceId: inst.id,
          accountId: p.accountId,
          label,
          size: b.size,
          filesystem,
          image: image?.id ?? null,
          usedMb: image ? minSize : 0,
          status: 'not ready',
        },
        this.now(),
      );
      if (stackscript) await recordDeployment(tx, stackscript, inst.id, p.accountId, this.now());
      if (image)
        await recordSeed(
          tx,
          this.d.machines,
          { instanceId: inst.id, accountId: p.accountId },
          { rootPass: b.root_pass, ...(keys.length > 0 ? { authorizedKeys: keys } : {}) },
          this.now(),
          true,
        );
      const eventId = await this.event(tx, p, inst, 'disk_create', { id, label }, 'scheduled');
      await this.enqueue(tx, p, inst, { op: 'create', diskId: id, eventId }, id);
      return toApiDisk(await this.loadDisk(tx, inst, id), inst.disk_encryption);
    });
  }

  /** Relabel (a status notification `disk_update`). */
  async update(
    p: Principal,
    computeId: number,
    diskId: number,
    label: string | undefined,
  ): Promise<ApiDisk> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const disk = await this.loadDisk(tx, inst, diskId, true);
      if (label !== undefined && label !== disk.label) {
        await tx.db
          .updateTable('disks')
          .set({ label, updated: this.now() })
          .where('id', '=', disk.id)
          .execute();
        await this.event(tx, p, inst, 'disk_update', { id: disk.id, label }, 'notification');
      }
      return toApiDisk(await this.loadDisk(tx, inst, diskId), inst.disk_encryption);
    });
  }

  /** Delete: not while the running instance uses the disk; it leaves every config's devices at once. */
  async delete(p: Principal, computeId: number, diskId: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const disk = await this.loadDisk(tx, inst, diskId, true);
      await refuseIfSubresourcesLocked(tx, 'compute', inst.id, 'the disks');
      await this.instances.assertIdle(tx, inst);
      await this.assertDiskIdle(tx, disk);
      if (await diskInUse(tx, inst, disk.id)) {
        throw errors.reason(
          'The disk is in use by the running configuration profile; shut the instance down before deleting it.',
        );
      }
      const now = this.now();
      await tx.db
        .updateTable('disks')
        .set({ status: 'deleting', updated: now })
        .where('id', '=', disk.id)
        .execute();
      await this.dropFromConfigs(tx, inst.id, disk.id, now);
      const eventId = await this.event(tx, p, inst, 'disk_delete', disk, 'scheduled');
      await this.enqueue(tx, p, inst, { op: 'delete', diskId: disk.id, eventId }, disk.id);
    });
  }

  private async dropFromConfigs(
    db: Database,
    instanceId: number,
    diskId: number,
    now: string,
  ): Promise<void> {
    const configs = await db.db
      .selectFrom('configs')
      .select(['id', 'devices'])
      .where('instance_id', '=', instanceId)
      .execute();
    for (const c of configs) {
      const devices = parseDevices(c.devices);
      let changed = false;
      for (const slot of DEVICE_SLOTS) {
        const dev = devices[slot];
        if (dev !== null && 'disk_id' in dev && dev.disk_id === diskId) {
          devices[slot] = null;
          changed = true;
        }
      }
      if (changed) {
        await db.db
          .updateTable('configs')
          .set({ devices: JSON.stringify(devices), updated: now })
          .where('id', '=', c.id)
          .execute();
      }
    }
  }

  /** Clone: a byte copy into a new disk of the same instance; needs room for a disk of the same size. */
  async clone(p: Principal, computeId: number, diskId: number): Promise<ApiDisk> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const src = await this.loadDisk(tx, inst, diskId, true);
      await this.instances.assertIdle(tx, inst);
      await this.assertDiskIdle(tx, src);
      const free = await this.freeMb(tx, inst);
      if (src.size > free) {
        throw errors.reason(
          `Not enough free space to clone this disk: it needs ${src.size} MB and ${free} MB is available.`,
        );
      }
      const label = `Copy of ${src.label}`.slice(0, MAX_LABEL);
      const id = await insertDisk(
        tx,
        {
          instanceId: inst.id,
          accountId: p.accountId,
          label,
          size: src.size,
          filesystem: src.filesystem,
          image: src.image,
          usedMb: src.used_mb,
          status: 'not ready',
        },
        this.now(),
      );
      await recordDiskSource(
        tx,
        this.d.machines,
        { diskId: id, instanceId: inst.id, accountId: p.accountId },
        { kind: 'disk', from: { instanceId: inst.id, region: inst.region, diskId: src.id } },
      );
      const eventId = await this.event(tx, p, inst, 'disk_duplicate', { id, label }, 'scheduled');
      // The source is busy for the job; the copy is `not ready` until it ends.
      await this.enqueue(tx, p, inst, { op: 'clone', diskId: id, eventId }, src.id);
      return toApiDisk(await this.loadDisk(tx, inst, id), inst.disk_encryption);
    });
  }

  /**
   * Resize: checked now against the used data and the free storage; whether the disk is in use
   * is found by the job, which then fails and leaves the disk as it was.
   */
  async resize(p: Principal, computeId: number, diskId: number, size: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const disk = await this.loadDisk(tx, inst, diskId, true);
      await this.instances.assertIdle(tx, inst);
      await this.assertDiskIdle(tx, disk);
      if (size < disk.used_mb) {
        throw errors.invalidField(
          'size',
          `The disk cannot be smaller than the ${disk.used_mb} MB of data on it`,
        );
      }
      const free = await this.freeMb(tx, inst, disk.id);
      if (size > free)
        throw errors.invalidField(
          'size',
          `Not enough free space: the disk can grow to at most ${free} MB`,
        );
      await tx.db
        .updateTable('disks')
        .set({ status: 'not ready', updated: this.now() })
        .where('id', '=', disk.id)
        .execute();
      const eventId = await this.event(tx, p, inst, 'disk_resize', disk, 'scheduled');
      await this.enqueue(tx, p, inst, { op: 'resize', diskId: disk.id, eventId, size }, disk.id);
    });
  }

  /**
   * Root password reset: strength-checked; like the instance's password reset, the instance must
   * be shut down. Nothing of the password is kept. Event `password_reset`.
   */
  async resetPassword(
    p: Principal,
    computeId: number,
    diskId: number,
    password: string,
  ): Promise<void> {
    const fe = new FieldErrors();
    checkPassword(fe, 'password', password, [p.username]);
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, computeId, 'read_write', true);
      const disk = await this.loadDisk(tx, inst, diskId, true);
      fe.throwIfAny();
      await this.instances.assertIdle(tx, inst);
      await this.assertDiskIdle(tx, disk);
      if (inst.status !== 'offline')
        throw errors.reason('The instance must be shut down to reset a disk password.');
      if (disk.filesystem !== 'ext3' && disk.filesystem !== 'ext4') {
        throw errors.reason(`A ${disk.filesystem} disk has no root password to reset.`);
      }
      await recordSeed(
        tx,
        this.d.machines,
        { instanceId: inst.id, accountId: p.accountId },
        { rootPass: password },
        this.now(),
        true,
      );
      await this.event(tx, p, inst, 'password_reset', disk, 'notification');
    });
  }
}
