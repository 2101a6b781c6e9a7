import type { Readable } from 'node:stream';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import { isoSeconds } from '../../lib/time.js';
import { checkTags } from '../compute/compute.rules.js';
import { setTags } from '../tags/tags.repository.js';
import { addFirstReplica, UPLOAD_WINDOW_MS, uploadExpiryJob } from './images.jobs.js';
import { imageRef, insertPrivateImage, syncListing, UPLOAD_PATH } from './images.repository.js';
import type { UploadImage } from './images.schemas.js';
import { receiveImage } from './upload.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import type { Timing } from '../../jobs/timing.js';
import type { BlobStore } from '../../storage/index.js';
import type { Image } from '../catalogue/catalogue.data.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { EventWriter } from '../events/events.writer.js';

export type ApiImage = Image & { tags: string[] };

/** What the images service and its uploads are built from. */
export interface ImageDeps {
  db: Database;
  clock: Clock;
  timing: Timing;
  events: EventWriter;
  queue: JobQueue;
  catalogue: CatalogueService;
  /** Uploaded images' bytes: the `images` area of the blob store (local disk or S3). */
  bytes: BlobStore;
}

/** Image uploads: the pending image and its URL, then the PUT of the bytes to that URL. */

/** Starts an upload: a `pending_upload` image and the URL that takes its bytes for 24 hours. */
export async function startUpload(
  d: ImageDeps,
  p: Principal,
  b: UploadImage,
  baseUrl: string,
): Promise<{ upload_to: string; image: ApiImage }> {
  authz.requireGlobal(p, 'add_images');
  const fe = new FieldErrors();
  const region = d.catalogue.region(b.region);
  if (!region) fe.add('region', 'region is not valid');
  // Uploads land where replicas may: a core region with Object Storage (as replication).
  else if (region.site_type !== 'core' || !region.capabilities.includes('Object Storage'))
    fe.add('region', `Images cannot be stored in region ${b.region}.`);
  checkTags(fe, b.tags);
  fe.throwIfAny();
  const secret = newSecret();
  return d.db.transaction(async (tx) => {
    const now = isoSeconds(d.clock.nowMs());
    const id = await insertPrivateImage(
      tx,
      p.accountId,
      {
        label: b.label,
        description: b.description ?? null,
        status: 'pending_upload',
        cloud_init: b.cloud_init ? 1 : 0,
        region: b.region,
        created_by: p.username,
        upload_token_hash: hashSecret(secret),
        upload_expires: d.clock.nowMs() + UPLOAD_WINDOW_MS,
      },
      now,
    );
    if (b.tags) await setTags(tx, p.accountId, 'image', id, b.tags);
    await authz.grantCreator(tx, p, 'image', id);
    const eventId = await d.events.record(tx, {
      accountId: p.accountId,
      action: 'image_upload',
      entity: imageRef(id, b.label),
      status: 'started',
      username: p.username,
    });
    await tx.db
      .updateTable('private_images')
      .set({ upload_event_id: eventId })
      .where('id', '=', id)
      .execute();
    await d.queue.enqueue(
      tx,
      uploadExpiryJob,
      { imageId: id, accountId: p.accountId },
      { accountId: p.accountId, delayMs: UPLOAD_WINDOW_MS },
    );
    const image = await syncListing(tx, id);
    return { upload_to: `${baseUrl}${UPLOAD_PATH}/${secret}`, image };
  });
}

async function pendingByToken(d: ImageDeps, db: Database, token: string, lock: boolean) {
  if (!/^[0-9a-f]{64}$/.test(token)) return undefined;
  const q = db.db
    .selectFrom('private_images')
    .selectAll()
    .where('upload_token_hash', '=', hashSecret(token))
    .where('status', '=', 'pending_upload');
  const row = await (lock ? db.forUpdate(q) : q).executeTakeFirst();
  if (!row || (row.upload_expires ?? 0) <= d.clock.nowMs()) return undefined;
  return row;
}

/**
 * The PUT to an upload URL: the gzipped raw image is kept in the `images` blob store and the image
 * becomes `available`, its size the raw image's size in MB. Unknown, used or expired URLs: 404.
 */
export async function receiveUpload(d: ImageDeps, token: string, body: Readable): Promise<void> {
  const row = await pendingByToken(d, d.db, token, false);
  if (!row) {
    body.resume();
    throw errors.notFound();
  }
  const key = d.bytes.newKey();
  const { rawBytes, storedBytes } = await receiveImage(d.bytes, key, body);
  try {
    await d.db.transaction(async (tx) => {
      const again = await pendingByToken(d, tx, token, true);
      if (!again) throw errors.notFound();
      await tx.db
        .updateTable('private_images')
        .set({
          status: 'available',
          size: Math.max(1, Math.ceil(rawBytes / (1024 * 1024))),
          stored_bytes: storedBytes,
          blob_key: key,
          upload_token_hash: null,
          upload_expires: null,
          updated: isoSeconds(d.clock.nowMs()),
        })
        .where('id', '=', row.id)
        .execute();
      await addFirstReplica(tx, row.id, isoSeconds(d.clock.nowMs()));
      await syncListing(tx, row.id);
      if (again.upload_event_id !== null)
        await d.events.update(tx, again.upload_event_id, { status: 'finished' });
    });
  } catch (err) {
    await d.bytes.delete(key);
    throw err;
  }
}
