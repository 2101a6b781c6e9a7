import type { Readable } from 'node:stream';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { refuseUnserved } from '../../http/unserved.js';
import { isoSeconds } from '../../lib/time.js';
import { checkTags } from '../compute/compute.rules.js';
import { entityRefs } from '../events/events.types.js';
import { dropTags, setTags } from '../tags/tags.repository.js';
import type { BlobStore } from '../../storage/index.js';
import { billImage } from '../billing/billables.js';
import { imagizeJob, replicaJob } from './images.jobs.js';
import {
  deletePrivateImage,
  findPrivateImage,
  insertPrivateImage,
  imageRef,
  parsePrivateImageId,
  type PrivateImageRow,
  privateImageId,
  replicasOf,
  syncListing,
} from './images.repository.js';
import type { CreateImage, ReplicateImage, UpdateImage, UploadImage } from './images.schemas.js';
import { type ApiImage, type ImageDeps, receiveUpload, startUpload } from './images.uploads.js';

export type { ApiImage, ImageDeps };

/**
 * Private images: captured from a disk (a job) or uploaded (a URL that takes the gzipped raw
 * image), updated, deleted. Public images and the lists are the catalogue's.
 */
export class ImagesService {
  constructor(private readonly d: ImageDeps) {}

  /** Where uploaded images' bytes are kept. */
  get bytes(): BlobStore {
    return this.d.bytes;
  }

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** A private image of the caller's account it may see (404 otherwise), at `level`. */
  private async load(
    db: Database,
    p: Principal,
    imageId: string,
    level: 'read_only' | 'read_write',
  ): Promise<PrivateImageRow> {
    const id = parsePrivateImageId(imageId);
    if (id === undefined) {
      refuseUnserved(`/v4/images/${imageId}`);
      // Public images exist for everyone but belong to no account: they cannot be changed.
      const pub = await db.db
        .selectFrom('images')
        .select('id')
        .where('id', '=', imageId)
        .where('account_id', 'is', null)
        .executeTakeFirst();
      if (pub) throw errors.unauthorized();
      // A shared image a member sees is the producer's: members cannot change, replicate or
      // delete it (the API changes only private images).
      if (await this.d.catalogue.sharedImage(db, imageId, p.accountId)) throw errors.unauthorized();
      throw errors.notFound();
    }
    const row = await findPrivateImage(db, p.accountId, id, true);
    if (!row) throw errors.notFound();
    await authz.requireEntity(db, p, 'image', id, level);
    return row;
  }

  /** Captures a disk of an instance: `creating`, then `available` when the job ends. */
  async create(p: Principal, b: CreateImage): Promise<ApiImage> {
    authz.requireGlobal(p, 'add_images');
    const fe = new FieldErrors();
    checkTags(fe, b.tags);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const disk = await tx
        .forUpdate(
          tx.db
            .selectFrom('disks')
            .selectAll()
            .where('id', '=', b.disk_id)
            .where('account_id', '=', p.accountId),
        )
        .executeTakeFirst();
      const have = disk ? await authz.permissionOn(tx, p, 'compute', disk.instance_id) : null;
      if (!disk || have === null) throw errors.invalidField('disk_id', 'Disk not found');
      if (disk.filesystem === 'swap')
        throw errors.invalidField('disk_id', 'A swap disk cannot be captured as an image');
      if (disk.status !== 'ready') throw errors.busy('Disk');
      await this.d.queue.assertIdle(tx, 'disk', disk.id, 'Disk');
      const inst = await tx.db
        .selectFrom('instances')
        .select(['id', 'label', 'status', 'region'])
        .where('id', '=', disk.instance_id)
        .executeTakeFirstOrThrow();
      if (inst.status === 'deleting') throw errors.busy('Compute');
      const now = this.now();
      const label = b.label ?? disk.label;
      const id = await insertPrivateImage(
        tx,
        p.accountId,
        {
          label,
          description: b.description ?? null,
          status: 'creating',
          size: disk.size,
          cloud_init: b.cloud_init ? 1 : 0,
          region: inst.region,
          created_by: p.username,
          source_instance_id: inst.id,
          source_disk_id: disk.id,
          filesystem: disk.filesystem,
        },
        now,
      );
      if (b.tags) await setTags(tx, p.accountId, 'image', id, b.tags);
      await authz.grantCreator(tx, p, 'image', id);
      const api = await syncListing(tx, id);
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'disk_imagize',
        entity: entityRefs.compute(inst.id, inst.label),
        secondaryEntity: imageRef(id, label),
        status: 'scheduled',
        username: p.username,
      });
      await this.d.queue.enqueue(
        tx,
        imagizeJob,
        { imageId: id, accountId: p.accountId, eventId, step: 0 },
        { accountId: p.accountId, entity: { type: 'disk', id: disk.id } },
      );
      return api;
    });
  }

  /** Starts an upload: a `pending_upload` image and the URL that takes its bytes for 24 hours. */
  upload(p: Principal, b: UploadImage, baseUrl: string) {
    return startUpload(this.d, p, b, baseUrl);
  }

  /** The PUT to an upload URL (see `receiveUpload`). */
  receive(token: string, body: Readable): Promise<void> {
    return receiveUpload(this.d, token, body);
  }

  /** Update: label, description and tags of a private image. */
  async update(p: Principal, imageId: string, b: UpdateImage): Promise<ApiImage> {
    const fe = new FieldErrors();
    checkTags(fe, b.tags);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, imageId, 'read_write');
      await tx.db
        .updateTable('private_images')
        .set({
          ...(b.label !== undefined ? { label: b.label } : {}),
          ...(b.description !== undefined ? { description: b.description } : {}),
          updated: this.now(),
        })
        .where('id', '=', row.id)
        .execute();
      if (b.tags !== undefined) await setTags(tx, p.accountId, 'image', row.id, b.tags);
      const api = await syncListing(tx, row.id);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'image_update',
        entity: imageRef(row.id, api.label),
        status: 'notification',
        username: p.username,
      });
      return api;
    });
  }

  /**
   * `POST /images/{id}/regions`: the image's replicas become exactly `regions`. A region new to
   * the image gets a replica `pending replication` (a job copies it: `replicating`, then
   * `available`); a replica whose region is not listed becomes `pending deletion` (then goes).
   * The image must be `available`, the list must keep at least one `available` replica, and each
   * region must be a core region that stores images (object storage).
   */
  async replicate(p: Principal, imageId: string, b: ReplicateImage): Promise<ApiImage> {
    const fe = new FieldErrors();
    const wanted = [...new Set(b.regions)];
    if (wanted.length === 0) fe.add('regions', 'At least one region is required.');
    for (const id of wanted) {
      const region = this.d.catalogue.region(id);
      if (!region) fe.add('regions', `Region ${id} is not valid.`);
      else if (region.site_type !== 'core' || !region.capabilities.includes('Object Storage'))
        fe.add('regions', `Images cannot be stored in region ${id}.`);
    }
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, imageId, 'read_write');
      if (row.status !== 'available')
        throw errors.reason(`Image ${privateImageId(row.id)} must be available to be replicated.`);
      const now = this.now();
      const have = await replicasOf(tx, row.id);
      const live = have.filter((r) => r.status !== 'pending deletion');
      // An image stored before replicas were recorded, its region unknown, has none to keep.
      const mustKeep = have.length > 0;
      if (mustKeep && !have.some((r) => r.status === 'available' && wanted.includes(r.region))) {
        const keep = have.filter((r) => r.status === 'available').map((r) => r.region);
        throw errors.invalidField(
          'regions',
          `At least one available region must be present (${keep.join(', ')}).`,
        );
      }
      const owner = { accountId: p.accountId, entity: { type: 'image', id: row.id } };
      const delayMs = this.d.timing.stepMs('image_replicate', 2);
      let changed = false;
      for (const region of wanted) {
        if (live.some((r) => r.region === region)) continue;
        changed = true;
        await tx.db
          .deleteFrom('image_regions')
          .where('image_id', '=', row.id)
          .where('region', '=', region)
          .execute();
        await tx.db
          .insertInto('image_regions')
          .values({ image_id: row.id, region, status: 'pending replication', created: now })
          .execute();
        await this.d.queue.enqueue(
          tx,
          replicaJob,
          { imageId: row.id, accountId: p.accountId, region, op: 'add', step: 0 },
          { ...owner, delayMs },
        );
      }
      for (const r of live) {
        if (wanted.includes(r.region)) continue;
        changed = true;
        await tx.db
          .updateTable('image_regions')
          .set({ status: 'pending deletion' })
          .where('image_id', '=', row.id)
          .where('region', '=', r.region)
          .execute();
        await this.d.queue.enqueue(
          tx,
          replicaJob,
          { imageId: row.id, accountId: p.accountId, region: r.region, op: 'remove', step: 0 },
          { ...owner, delayMs },
        );
      }
      if (!changed) return syncListing(tx, row.id);
      await tx.db
        .updateTable('private_images')
        .set({ updated: now })
        .where('id', '=', row.id)
        .execute();
      await billImage(tx, row.id, now);
      const api = await syncListing(tx, row.id);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'image_update',
        entity: imageRef(row.id, row.label),
        status: 'notification',
        username: p.username,
      });
      return api;
    });
  }

  /** Delete: irreversible; the image can no longer be deployed and its bytes are removed. */
  async delete(p: Principal, imageId: string): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, imageId, 'read_write');
      await dropTags(tx, 'image', row.id);
      await authz.dropEntity(tx, 'image', row.id);
      await deletePrivateImage(tx, row.id);
      await billImage(tx, row.id, this.now());
      if (row.status === 'pending_upload' && row.upload_event_id !== null) {
        await this.d.events.update(tx, row.upload_event_id, {
          status: 'failed',
          message: 'The image was deleted before its data was uploaded.',
        });
      }
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'image_delete',
        entity: imageRef(row.id, row.label),
        status: 'notification',
        username: p.username,
      });
      // After the commit (a rolled-back delete keeps its bytes); a failure leaves an orphan file.
      const blob = row.blob_key;
      if (blob) tx.onCommit(() => this.d.bytes.delete(blob).catch(() => undefined));
    });
  }
}
