import { Type } from '@sinclair/typebox';
import { authz } from '../../auth/authz.js';
import { defineJob, type PerformResult, type WorkContext } from '../../jobs/job.js';
import type { Database } from '../../db/database.js';
import { isoSeconds } from '../../lib/time.js';
import { billImage } from '../billing/billables.js';
import { dropTags } from '../tags/tags.repository.js';
import { deletePrivateImage, syncListing } from './images.repository.js';
import type { ImageReplicaStatus } from './images.table.js';

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
    const now = isoSeconds(ctx.clock.nowMs());
    await ctx.db.db
      .updateTable('private_images')
      .set({ status: 'available', updated: now })
      .where('id', '=', p.imageId)
      .execute();
    await addFirstReplica(ctx.db, p.imageId, now);
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

/**
 * An image that became available (captured or uploaded) is stored in its first region: that
 * region's replica is `available` at once, and the image is billed from now on.
 */
export async function addFirstReplica(db: Database, imageId: number, nowIso: string) {
  const img = await db.db
    .selectFrom('private_images')
    .select('region')
    .where('id', '=', imageId)
    .executeTakeFirst();
  if (!img?.region) return;
  await db.db.deleteFrom('image_regions').where('image_id', '=', imageId).execute();
  await db.db
    .insertInto('image_regions')
    .values({ image_id: imageId, region: img.region, status: 'available', created: nowIso })
    .execute();
  await billImage(db, imageId, nowIso);
}

/** Steps of a replication: `pending replication`, then `replicating`, then `available`. */
const REPLICA_STEPS = 2;

export interface ReplicaPayload {
  imageId: number;
  accountId: number;
  region: string;
  /** `add`: copy the image to the region; `remove`: delete the replica there. */
  op: 'add' | 'remove';
  step: number;
}

/** Locks the image (replica changes of one image are serialised) and reads the replica. */
async function lockedReplica(db: Database, p: ReplicaPayload) {
  const img = await db
    .forUpdate(db.db.selectFrom('private_images').select('id').where('id', '=', p.imageId))
    .executeTakeFirst();
  if (!img) return undefined;
  return db.db
    .selectFrom('image_regions')
    .select('status')
    .where('image_id', '=', p.imageId)
    .where('region', '=', p.region)
    .executeTakeFirst();
}

async function setReplica(
  db: Database,
  p: ReplicaPayload,
  from: ImageReplicaStatus,
  to: ImageReplicaStatus,
): Promise<void> {
  await db.db
    .updateTable('image_regions')
    .set({ status: to })
    .where('image_id', '=', p.imageId)
    .where('region', '=', p.region)
    .where('status', '=', from)
    .execute();
}

/**
 * A replica added by `POST /images/{id}/regions`: `pending replication` → `replicating` →
 * `available` (then billed and counted in `total_size`). A replica removed by the same call:
 * `pending deletion`, then gone. Each step only moves a replica still in the status it expects:
 * a replica removed while it replicates, or added again while pending deletion, is left to the
 * newer job.
 */
export const replicaJob = defineJob<ReplicaPayload>({
  name: 'images.replica',
  version: 1,
  payload: Type.Object({
    imageId: Type.Integer(),
    region: Type.String(),
    op: Type.String({ enum: ['add', 'remove'] }),
  }),
  maxAttempts: 5,
  async handle(ctx, p) {
    const replica = await lockedReplica(ctx.db, p);
    if (!replica) return undefined;
    const now = isoSeconds(ctx.clock.nowMs());
    const delay = ctx.timing.stepMs('image_replicate', REPLICA_STEPS);
    if (p.op === 'remove') {
      if (replica.status !== 'pending deletion') return undefined;
      await ctx.db.db
        .deleteFrom('image_regions')
        .where('image_id', '=', p.imageId)
        .where('region', '=', p.region)
        .where('status', '=', 'pending deletion')
        .execute();
    } else if (p.step === 0) {
      if (replica.status !== 'pending replication') return undefined;
      await setReplica(ctx.db, p, 'pending replication', 'replicating');
      await syncListing(ctx.db, p.imageId);
      return { next: { ...p, step: 1 }, delayMs: delay };
    } else {
      if (replica.status !== 'replicating') return undefined;
      await setReplica(ctx.db, p, 'replicating', 'available');
      await billImage(ctx.db, p.imageId, now);
    }
    await syncListing(ctx.db, p.imageId);
    return undefined;
  },
});

export const imageJobs = [imagizeJob, uploadExpiryJob, replicaJob];
