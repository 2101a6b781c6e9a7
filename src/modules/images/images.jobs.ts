import { Type } from '@sinclair/typebox';
import { authz } from '../../auth/authz.js';
import { defineJob, type PerformResult, type WorkContext } from '../../jobs/job.js';
import { isoSeconds } from '../../lib/time.js';
import { dropTags } from '../tags/tags.repository.js';
import { deletePrivateImage, syncListing } from './images.repository.js';

/** Progress steps of a disk capture. */
export const IMAGIZE_STEPS = 4;

/** How long an upload may stay pending before the image is deleted (reference: 24 hours). */
export const UPLOAD_WINDOW_MS = 24 * 3600 * 1000;

export interface ImagizePayload {
  imageId: number;
  accountId: number;
  eventId: number;
  step: number;
}

/**
 * The compute driver's work before the last step, outside the transaction: the disk's bytes are
 * copied into the image (src/machines). Nothing with the simulated driver.
 */
async function performImagize(
  ctx: WorkContext,
  p: ImagizePayload,
): Promise<PerformResult<ImagizePayload>> {
  if (!ctx.machines.real || p.step < IMAGIZE_STEPS) return { payload: p };
  const src = await ctx.db.db
    .selectFrom('private_images')
    .innerJoin('disks', 'disks.id', 'private_images.source_disk_id')
    .innerJoin('instances', 'instances.id', 'disks.instance_id')
    .select(['disks.id as diskId', 'instances.id as instanceId', 'instances.region'])
    .where('private_images.id', '=', p.imageId)
    .where('disks.status', '<>', 'deleting')
    .executeTakeFirst();
  if (src) await ctx.machines.captureImage(p.imageId, src);
  return { payload: p };
}

/**
 * Captures a disk into a private image: `creating` until the copy is done, then `available`.
 * The event `disk_imagize` moves from scheduled to finished; the disk is busy meanwhile.
 */
export const imagizeJob = defineJob<ImagizePayload>({
  name: 'images.imagize',
  version: 1,
  payload: Type.Object({ imageId: Type.Integer(), eventId: Type.Integer() }),
  maxAttempts: 5,
  perform: performImagize,
  async handle(ctx, p) {
    const img = await ctx.db.db
      .selectFrom('private_images')
      .select(['id', 'status'])
      .where('id', '=', p.imageId)
      .executeTakeFirst();
    if (!img) {
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: 'The image was deleted before it was captured.',
      });
      return undefined;
    }
    const delay = ctx.timing.stepMs('disk_clone', IMAGIZE_STEPS);
    if (p.step === 0) {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 0 });
      return { next: { ...p, step: 1 }, delayMs: delay };
    }
    if (p.step < IMAGIZE_STEPS) {
      await ctx.events.update(ctx.db, p.eventId, {
        percentComplete: Math.round((p.step / IMAGIZE_STEPS) * 100),
      });
      return { next: { ...p, step: p.step + 1 }, delayMs: delay };
    }
    // The disk went away (its instance was deleted) before the copy was done: no image.
    const disk = await ctx.db.db
      .selectFrom('private_images')
      .innerJoin('disks', 'disks.id', 'private_images.source_disk_id')
      .select('disks.id')
      .where('private_images.id', '=', p.imageId)
      .where('disks.status', '<>', 'deleting')
      .executeTakeFirst();
    if (!disk) {
      await dropTags(ctx.db, 'image', p.imageId);
      await authz.dropEntity(ctx.db, 'image', p.imageId);
      await deletePrivateImage(ctx.db, p.imageId);
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: 'The disk was deleted before it was captured; the image was removed.',
      });
      return undefined;
    }
    await ctx.db.db
      .updateTable('private_images')
      .set({ status: 'available', updated: isoSeconds(ctx.clock.nowMs()) })
      .where('id', '=', p.imageId)
      .execute();
    await syncListing(ctx.db, p.imageId);
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    return undefined;
  },
  async onFailure(ctx, p, error) {
    await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
  },
});

export interface UploadExpiryPayload {
  imageId: number;
  accountId: number;
}

/** 24 hours after an upload was initiated: an image still waiting for its bytes is deleted. */
export const uploadExpiryJob = defineJob<UploadExpiryPayload>({
  name: 'images.upload_expiry',
  version: 1,
  payload: Type.Object({ imageId: Type.Integer() }),
  maxAttempts: 5,
  async handle(ctx, p) {
    const img = await ctx.db
      .forUpdate(ctx.db.db.selectFrom('private_images').selectAll().where('id', '=', p.imageId))
      .executeTakeFirst();
    if (img?.status !== 'pending_upload') return undefined;
    await dropTags(ctx.db, 'image', img.id);
    await authz.dropEntity(ctx.db, 'image', img.id);
    await deletePrivateImage(ctx.db, img.id);
    if (img.upload_event_id !== null) {
      await ctx.events.update(ctx.db, img.upload_event_id, {
        status: 'failed',
        message: 'The image data was not uploaded within 24 hours; the image was deleted.',
      });
    }
    return undefined;
  },
});

export const imageJobs = [imagizeJob, uploadExpiryJob];
