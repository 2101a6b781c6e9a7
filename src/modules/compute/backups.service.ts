import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { entityRefs } from '../events/events.types.js';
import {
  scheduleAutomaticBackups,
  startBackup,
  unscheduleAutomaticBackups,
} from './backups.jobs.js';
import {
  type ApiBackup,
  type BackupRow,
  contentsMb,
  contentsOf,
  dropBackups,
  toApiBackup,
  writeContents,
} from './backups.repository.js';
import { allocatedDiskMb, findInstance, type InstanceRow } from './compute.repository.js';
import type { BackupStatus } from './compute.table.js';
import type { InstancesService } from './instances.service.js';
import { backupsRefusal, type OpDeps, startOp } from './ops.start.js';
import { setBackupsAddon } from './plan-changes.js';
import { recordDiskSource } from './machines.seam.js';

export const INSUFFICIENT_SPACE =
  'Insufficient space on the target compute instance to restore this backup: free disk space or restore with overwrite.';
const NOT_ENABLED = 'Backups are not enabled for this compute instance.';
const IN_PROGRESS: BackupStatus[] = ['pending', 'running', 'paused', 'needsPostProcessing'];

/** Backups: the add-on, snapshots, the list, and restores. */
export class BackupsService {
  constructor(
    private readonly d: OpDeps & { catalogue: CatalogueService },
    private readonly instances: InstancesService,
  ) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private async backupsOf(db: Database, instanceId: number): Promise<BackupRow[]> {
    return db.db
      .selectFrom('backups')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .orderBy('id')
      .execute();
  }

  /** `{automatic: [...], snapshot: {in_progress, current}}` (reference shape). */
  async list(p: Principal, id: number) {
    const inst = await this.instances.load(this.d.db, p, id, 'read_only');
    const rows = await this.backupsOf(this.d.db, inst.id);
    const snaps = rows.filter((r) => r.type === 'snapshot');
    const pick = (r: BackupRow | undefined) => (r ? toApiBackup(r) : null);
    return {
      automatic: rows.filter((r) => r.type === 'auto').map(toApiBackup),
      snapshot: {
        in_progress: pick(snaps.find((r) => IN_PROGRESS.includes(r.status))),
        current: pick(snaps.filter((r) => r.status === 'successful').at(-1)),
      },
    };
  }

  async get(p: Principal, id: number, backupId: number): Promise<ApiBackup> {
    const inst = await this.instances.load(this.d.db, p, id, 'read_only');
    const row = (await this.backupsOf(this.d.db, inst.id)).find((r) => r.id === backupId);
    if (!row) throw errors.notFound();
    return toApiBackup(row);
  }

  /** Enable the add-on (billing through `setBackupsAddon`) and queue the automatic backups. */
  async enable(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, id, 'read_write', true);
      if (inst.status === 'deleting') throw errors.busy('Compute');
      if (toBool(inst.backups_enabled)) return;
      const refused = backupsRefusal(this.d.catalogue.region(inst.region));
      if (refused) throw errors.reason(refused);
      await setBackupsAddon(tx, inst.id, true, this.now());
      await scheduleAutomaticBackups(tx, this.d.queue, inst.id, p.accountId);
      await this.event(tx, p, inst, 'backups_enable');
    });
  }

  /** Cancel: the add-on stops (billing through `setBackupsAddon`) and every backup is deleted. */
  async cancel(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, id, 'read_write', true);
      if (!toBool(inst.backups_enabled)) throw errors.reason(NOT_ENABLED);
      await setBackupsAddon(tx, inst.id, false, this.now());
      await unscheduleAutomaticBackups(tx, inst.id);
      await dropBackups(tx, inst.id);
      await this.event(tx, p, inst, 'backups_cancel');
    });
  }

  /** A snapshot: backups must be enabled; one at a time; the previous one goes when it succeeds. */
  async snapshot(p: Principal, id: number, label: string): Promise<ApiBackup> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, id, 'read_write', true);
      if (!toBool(inst.backups_enabled)) throw errors.reason(NOT_ENABLED);
      if (!['running', 'offline'].includes(inst.status)) throw errors.busy('Compute');
      const rows = await this.backupsOf(tx, inst.id);
      if (rows.some((r) => r.type === 'snapshot' && IN_PROGRESS.includes(r.status)))
        throw errors.reason('A snapshot is already in progress.');
      const eventId = await this.event(tx, p, inst, 'compute_snapshot', 'scheduled');
      const backupId = await startBackup(
        tx,
        this.d.queue,
        inst,
        { type: 'snapshot', label, eventId },
        this.now(),
      );
      const row = (await this.backupsOf(tx, inst.id)).find((r) => r.id === backupId);
      return toApiBackup(row as BackupRow);
    });
  }

  /**
   * Restore to a target of the same region: only a successful, available backup; the target
   * idle and not backing up. `overwrite` deletes its disks and configs first; without it the
   * backup must fit the target's free space. Event `backups_restore`; the target is `restoring`.
   */
  async restore(
    p: Principal,
    id: number,
    backupId: number,
    targetId: number,
    overwrite: boolean,
  ): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const src = await this.instances.load(tx, p, id, 'read_only');
      const row = (await this.backupsOf(tx, src.id)).find((r) => r.id === backupId);
      if (!row) throw errors.notFound();
      if (row.status !== 'successful' || !toBool(row.available))
        throw errors.reason('Only a successful, available backup can be restored.');
      const target = await findInstance(tx, p.accountId, targetId, true);
      if (!target) throw errors.invalidField('compute_id', 'Compute not found');
      await this.instances.load(tx, p, targetId, 'read_write', true);
      if (target.region !== row.region)
        throw errors.invalidField('compute_id', 'A backup can only be restored in its own region');
      await this.instances.assertIdle(tx, target);
      await this.instances.assertDisksIdle(tx, target);
      const backingUp = await tx.db
        .selectFrom('backups')
        .select('id')
        .where('instance_id', '=', target.id)
        .where('status', 'in', IN_PROGRESS)
        .executeTakeFirst();
      if (backingUp) throw errors.reason('The target compute instance is being backed up.');
      const contents = contentsOf(row);
      if (overwrite) {
        await tx.db.deleteFrom('config_interfaces').where('instance_id', '=', target.id).execute();
        await tx.db.deleteFrom('configs').where('instance_id', '=', target.id).execute();
        await tx.db.deleteFrom('disks').where('instance_id', '=', target.id).execute();
      } else {
        const typeDisk = this.d.catalogue.type(target.type)?.disk ?? 0;
        const free = typeDisk - (await allocatedDiskMb(tx, target.id));
        if (contentsMb(contents) > free) throw errors.reason(INSUFFICIENT_SPACE);
      }
      await writeContents(tx, contents, target.id, p.accountId, this.now(), (diskId, key) =>
        recordDiskSource(
          tx,
          this.d.machines,
          { diskId, instanceId: target.id, accountId: p.accountId },
          { kind: 'backup', backupId: row.id, key },
        ),
      );
      await startOp(this.d, tx, p, target, {
        op: 'restore',
        action: 'backups_restore',
        ...(target.id !== src.id ? { secondary: { id: src.id, label: src.label } } : {}),
      });
    });
  }

  private event(
    tx: Database,
    p: Principal,
    inst: InstanceRow,
    action: string,
    status: 'notification' | 'scheduled' = 'notification',
  ): Promise<number> {
    return this.d.events.record(tx, {
      accountId: p.accountId,
      action,
      entity: entityRefs.compute(inst.id, inst.label),
      status,
      username: p.username,
    });
  }
}
