import { Type } from '@sinclair/typebox';
import type { JobContext } from '../../jobs/job.js';
import { defineJob } from '../../jobs/job.js';
import type { WorkKind } from '../../jobs/timing.js';
import { isoSeconds } from '../../lib/time.js';
import { STEPS } from './compute.jobs.js';
import { diskInUse, findDisk, instanceById } from './compute.repository.js';
import type { DiskStatus } from './compute.table.js';
import { performDisk } from './machines.perform.js';

export type DiskOp = 'create' | 'clone' | 'resize' | 'delete';

export interface DiskJobPayload {
  op: DiskOp;
  instanceId: number;
  accountId: number;
  /** The disk worked on: the new disk of a create or a clone, the resized or deleted disk. */
  diskId: number;
  eventId: number;
  step: number;
  /** Resize: the new size in MB. */
  size?: number;
}

const KIND: Record<DiskOp, WorkKind> = {
  create: 'disk_create',
  clone: 'disk_clone',
  resize: 'disk_resize',
  delete: 'delete',
};

/** The message of a resize that finds its disk in use (the request itself was accepted). */
export const DISK_IN_USE_MESSAGE =
  'The disk is in use by the running configuration profile; shut the instance down before resizing it.';

async function setDiskStatus(
  ctx: JobContext,
  id: number,
  status: DiskStatus,
  size?: number,
): Promise<void> {
  await ctx.db.db
    .updateTable('disks')
    .set({
      status,
      ...(size !== undefined ? { size } : {}),
      updated: isoSeconds(ctx.clock.nowMs()),
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Disk create, clone, resize and delete: one job that moves the disk's event from `scheduled`
 * through `started` (with rising percent_complete) to `finished` or `failed`. While it runs the
 * disk is busy (`Disk busy.`). A resize fails, leaving the disk as it was, whenever it finds the
 * disk in use by the running instance.
 */
export const diskJob = defineJob<DiskJobPayload>({
  name: 'compute.disk',
  version: 1,
  payload: Type.Object({ op: Type.String(), instanceId: Type.Integer(), diskId: Type.Integer() }),
  maxAttempts: 5,
  perform: performDisk,
  async handle(ctx, p) {
    const inst = await instanceById(ctx.db, p.instanceId);
    const disk = inst ? await findDisk(ctx.db, inst.id, p.diskId) : undefined;
    if (!inst || !disk || inst.status === 'deleting') {
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: 'The instance was deleted.',
      });
      return undefined;
    }
    if (p.op === 'resize' && (await diskInUse(ctx.db, inst, disk.id))) {
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: DISK_IN_USE_MESSAGE,
      });
      await setDiskStatus(ctx, disk.id, 'ready');
      return undefined;
    }
    const steps = p.op === 'delete' ? 2 : STEPS;
    const delayMs = ctx.timing.stepMs(KIND[p.op], steps);
    if (p.step === 0) {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 0 });
      return { next: { ...p, step: 1 }, delayMs };
    }
    if (p.step < steps) {
      await ctx.events.update(ctx.db, p.eventId, {
        percentComplete: Math.round((p.step / steps) * 100),
      });
      return { next: { ...p, step: p.step + 1 }, delayMs };
    }
    if (p.op === 'delete') await ctx.db.db.deleteFrom('disks').where('id', '=', disk.id).execute();
    else await setDiskStatus(ctx, disk.id, 'ready', p.op === 'resize' ? p.size : undefined);
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    return undefined;
  },
  async onFailure(ctx, p, error) {
    await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
    // Whatever failed, the disk is left usable.
    await setDiskStatus(ctx, p.diskId, 'ready');
  },
});

export const diskJobs = [diskJob];
