import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { entityRefs } from '../events/events.types.js';
import type { IpAllocator } from '../networking/ip-allocator.js';
import { type LifecyclePayload, lifecycleJob } from './compute.jobs.js';
import { DEVICE_SLOTS, type InstanceRow } from './compute.repository.js';
import { checkPassword } from './compute.rules.js';
import type { InstancesService } from './instances.service.js';
import { DISKS_DO_NOT_FIT, diskFit, volumesProblem } from './ops.effects.js';
import type { ResizeBody, RescueBody } from './ops.schemas.js';
import { type OpDeps, outstandingBalance, startOp, typeAvailableIn } from './ops.start.js';
import { assertCapacity, recordSeed } from './machines.seam.js';

export interface OpsDeps extends OpDeps {
  catalogue: CatalogueService;
  ips: IpAllocator;
}

export const PENDING_MIGRATION = 'Compute has a migration pending; wait until it completes.';
export const OUTSTANDING_BALANCE =
  'Compute cannot be resized while the account has an outstanding balance.';

/** Resize, mutate, migrate, rescue and root password reset. */
export class OpsService {
  constructor(
    private readonly d: OpsDeps,
    private readonly instances: InstancesService,
  ) {}

  private async loadIdle(tx: OpDeps['db'], p: Principal, id: number): Promise<InstanceRow> {
    const inst = await this.instances.load(tx, p, id, 'read_write', true);
    return inst;
  }

  private async assertIdle(tx: OpDeps['db'], inst: InstanceRow): Promise<void> {
    await this.instances.assertIdle(tx, inst);
    await this.instances.assertDisksIdle(tx, inst);
  }

  /** Resize (spec): no pending migration, no outstanding balance, disks must fit the new type. */
  async resize(p: Principal, id: number, b: Static<typeof ResizeBody>): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.loadIdle(tx, p, id);
      const type = this.d.catalogue.type(b.type);
      const region = this.d.catalogue.region(inst.region);
      if (!type) throw errors.invalidField('type', 'A valid plan type by that ID was not found');
      if (type.id === inst.type) throw errors.invalidField('type', 'Compute is already this type');
      if (region && !typeAvailableIn(region, type))
        throw errors.invalidField(
          'type',
          'This type is not available in the instance\u2019s region',
        );
      if (inst.pending_migration !== null) throw errors.reason(PENDING_MIGRATION);
      if (await outstandingBalance(tx, p.accountId)) throw errors.reason(OUTSTANDING_BALANCE);
      await this.assertIdle(tx, inst);
      const allowAuto = b.allow_auto_disk_resize ?? true;
      const fit = await diskFit(tx, inst.id, type, allowAuto);
      if (!fit.fits) throw errors.invalidField('type', DISKS_DO_NOT_FIT);
      const vp = await volumesProblem(tx, inst.id, type);
      if (vp) throw errors.invalidField('type', vp);
      await startOp(this.d, tx, p, inst, {
        op: 'resize',
        action: 'compute_resize',
        createAction: 'compute_resize_create',
        warm: (b.migration_type ?? 'cold') === 'warm',
        type: type.id,
        allowAutoDiskResize: allowAuto,
      });
    });
  }

  /** Mutate to the type's successor; a running instance is restarted. */
  async mutate(p: Principal, id: number, allowAutoDiskResize: boolean | undefined): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.loadIdle(tx, p, id);
      const successor = this.d.catalogue.type(inst.type)?.successor ?? null;
      const next = successor === null ? undefined : this.d.catalogue.type(successor);
      if (!next) throw errors.reason('Compute has no upgrade available.');
      if (inst.pending_migration !== null) throw errors.reason(PENDING_MIGRATION);
      await this.assertIdle(tx, inst);
      const allowAuto = allowAutoDiskResize ?? true;
      const fit = await diskFit(tx, inst.id, next, allowAuto);
      if (!fit.fits) throw errors.reason(DISKS_DO_NOT_FIT);
      await startOp(this.d, tx, p, inst, {
        op: 'mutate',
        action: 'compute_mutate',
        createAction: 'compute_mutate_create',
        type: next.id,
        allowAutoDiskResize: allowAuto,
      });
    });
  }

  /**
   * Rescue: reboots into the rescue system with the given devices (slots `sda`..`sdg`; `sdh` is
   * the rescue system's own and refused).
   */
  async rescue(p: Principal, id: number, b: Static<typeof RescueBody>): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.loadIdle(tx, p, id);
      const devices = (b.devices ?? {}) as Record<string, unknown>;
      const fe = new FieldErrors();
      if (devices.sdh !== undefined) fe.add('devices.sdh', 'sdh is reserved for the rescue system');
      const disks = new Set(
        (
          await tx.db.selectFrom('disks').select('id').where('instance_id', '=', inst.id).execute()
        ).map((r) => r.id),
      );
      const volumes = new Set(
        (
          await tx.db.selectFrom('volumes').select('id').where('compute_id', '=', inst.id).execute()
        ).map((r) => r.id),
      );
      for (const s of DEVICE_SLOTS.slice(0, 7)) {
        const dev = devices[s] as { disk_id?: number | null; volume_id?: number | null } | null;
        if (!dev) continue;
        const disk = dev.disk_id ?? null;
        const vol = dev.volume_id ?? null;
        if (disk !== null && vol !== null)
          fe.add(`devices.${s}`, 'A slot holds a disk or a volume, not both');
        else if (disk !== null && !disks.has(disk))
          fe.add(`devices.${s}.disk_id`, 'Disk not found');
        else if (vol !== null && !volumes.has(vol))
          fe.add(`devices.${s}.volume_id`, 'Volume not found or not attached to this instance');
      }
      fe.throwIfAny();
      await this.assertIdle(tx, inst);
      const running = inst.status === 'running';
      if (!running) await assertCapacity(tx, this.d.machines, inst.id, inst.type);
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: running ? 'compute_reboot' : 'compute_boot',
        entity: entityRefs.compute(inst.id, inst.label),
        status: 'scheduled',
        username: p.username,
        message: 'Rescue mode',
      });
      await tx.db
        .updateTable('instances')
        .set({
          status: running ? 'rebooting' : 'booting',
          seen_status: null,
          updated: isoSeconds(this.d.clock.nowMs()),
        })
        .where('id', '=', inst.id)
        .execute();
      // The rescue system boots from no configuration profile of the instance.
      await this.d.queue.enqueue(
        tx,
        lifecycleJob,
        {
          instanceId: inst.id,
          accountId: p.accountId,
          op: running ? 'reboot' : 'boot',
          eventId,
          step: 0,
          configId: null,
          username: p.username,
          ...(this.d.machines.real
            ? { rescue: devices as NonNullable<LifecyclePayload['rescue']> }
            : {}),
        },
        { accountId: p.accountId, entity: { type: 'compute', id: inst.id } },
      );
    });
  }

  /** Root password reset: the instance must be shut down; strength-checked; `password_reset`. */
  async resetPassword(p: Principal, id: number, rootPass: string): Promise<void> {
    const fe = new FieldErrors();
    checkPassword(fe, 'root_pass', rootPass, [p.username]);
    await this.d.db.transaction(async (tx) => {
      const inst = await this.loadIdle(tx, p, id);
      fe.throwIfAny();
      if (inst.status !== 'offline')
        throw errors.reason('Compute must be shut down to reset its root password.');
      await this.assertIdle(tx, inst);
      const disk = await tx.db
        .selectFrom('disks')
        .select('id')
        .where('instance_id', '=', inst.id)
        .where('filesystem', 'in', ['ext3', 'ext4'])
        .executeTakeFirst();
      if (!disk) throw errors.reason('Compute has no disk with a root password to reset.');
      await recordSeed(
        tx,
        this.d.machines,
        { instanceId: inst.id, accountId: p.accountId },
        { rootPass },
        isoSeconds(this.d.clock.nowMs()),
        true,
      );
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'password_reset',
        entity: entityRefs.compute(inst.id, inst.label),
        status: 'notification',
        username: p.username,
      });
    });
  }
}
