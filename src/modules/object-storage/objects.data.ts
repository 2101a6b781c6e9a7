import { PassThrough, type Readable } from 'node:stream';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import {
  type BlobStore,
  BlobTooLargeError,
  type ByteRange,
  type PutResult,
} from '../../storage/index.js';
import {
  type BucketRow,
  blobsOf,
  bucketUsage,
  countTransfer,
  dropKeyAccess,
  findBucket,
  findObject,
  monthOf,
  type ObjectRow,
} from './objects.repository.js';
import { TransferMeter } from './objects.meter.js';
import type { BlobRef, ObjectAcl } from './objects.table.js';
import { s3errors } from './s3/s3.errors.js';

/** The largest single PUT (S3's limit); larger objects go through multipart upload. */
export const MAX_PUT_BYTES = 5 * 1024 ** 3;

export interface NewObject {
  contentType: string;
  acl: ObjectAcl;
  metadata: Record<string, string>;
  /** Hex SHA-256 the bytes must have (`x-amz-content-sha256`), if signed. */
  sha256?: string;
  /** Base64 MD5 the bytes must have (`Content-MD5`). */
  md5Base64?: string;
}

/**
 * Objects: bytes in the BlobStore under fresh keys, metadata in the database. A write streams
 * into a new blob, then one transaction publishes the row, adjusts the bucket's size and count
 * and queues the replaced blobs for removal after commit. Readers see the old object or the new
 * one, never a partial one.
 */
export class ObjectData {
  /** Outbound bytes, written in batches (objects.meter.ts). */
  readonly meter: TransferMeter;

  constructor(
    private readonly db: Database,
    readonly blobs: BlobStore,
    private readonly clock: Clock,
    onError: (err: unknown) => void = () => {},
  ) {
    this.meter = new TransferMeter(db, onError);
  }

  now(): string {
    return isoSeconds(this.clock.nowMs());
  }

  /** Streams a body into a new blob, checking its digests; the blob is removed on failure. */
  async store(body: Readable, want: { sha256?: string; md5Base64?: string }, maxBytes: number) {
    const key = this.blobs.newKey();
    let res: PutResult;
    try {
      res = await this.blobs.put(key, body, { maxBytes });
    } catch (err) {
      if (err instanceof BlobTooLargeError) throw s3errors.entityTooLarge();
      throw err;
    }
    const md5Ok =
      want.md5Base64 === undefined ||
      Buffer.from(res.md5, 'hex').toString('base64') === want.md5Base64;
    const shaOk = want.sha256 === undefined || want.sha256 === res.sha256;
    if (!md5Ok || !shaOk) {
      await this.blobs.delete(key);
      throw md5Ok ? s3errors.sha256Mismatch() : s3errors.badDigest();
    }
    return { key, ...res };
  }

  /** Publishes an object made of `blobs`; replaces any object of that name. */
  async publish(
    bucket: BucketRow,
    name: string,
    blobs: BlobRef[],
    etag: string,
    o: Omit<NewObject, 'sha256' | 'md5Base64'>,
    inBytes: number,
    /** Runs inside the publishing transaction (a multipart upload removes itself). */
    also?: (tx: Database) => Promise<void>,
  ): Promise<string> {
    const size = blobs.reduce((n, b) => n + b.size, 0);
    const now = this.now();
    const freed = await this.db.transaction(async (tx) => {
      const b = await tx
        .forUpdate(tx.db.selectFrom('obj_buckets').select('id').where('id', '=', bucket.id))
        .executeTakeFirst();
      if (!b) throw s3errors.noSuchBucket(bucket.label);
      const old = await findObject(tx, bucket.id, name);
      const row = {
        size,
        etag,
        content_type: o.contentType,
        acl: o.acl,
        metadata: JSON.stringify(o.metadata),
        blobs: JSON.stringify(blobs),
        last_modified: now,
      };
      if (old) {
        await tx.db.updateTable('obj_objects').set(row).where('id', '=', old.id).execute();
      } else {
        await tx.db
          .insertInto('obj_objects')
          .values({ bucket_id: bucket.id, name, ...row })
          .execute();
      }
      const delta = size - (old ? Number(old.size) : 0);
      await tx.db
        .updateTable('obj_buckets')
        .set((eb) => ({
          size: eb('size', '+', delta),
          objects: eb('objects', '+', old ? 0 : 1),
        }))
        .where('id', '=', bucket.id)
        .execute();
      await countTransfer(
        tx,
        bucket.account_id,
        bucket.id,
        monthOf(this.clock.nowMs()),
        'bytes_in',
        inBytes,
      );
      if (also) await also(tx);
      return old ? blobsOf(old) : [];
    });
    await this.dropBlobs(freed);
    return etag;
  }

  async dropBlobs(blobs: BlobRef[] | string[]): Promise<void> {
    for (const b of blobs) await this.blobs.delete(typeof b === 'string' ? b : b.key);
  }

  /** Removes an object (no error if it does not exist). */
  async remove(bucket: BucketRow, name: string): Promise<boolean> {
    const freed = await this.db.transaction(async (tx) => {
      const old = await findObject(tx, bucket.id, name);
      if (!old) return null;
      await tx.db.deleteFrom('obj_objects').where('id', '=', old.id).execute();
      await tx.db
        .updateTable('obj_buckets')
        .set((eb) => ({
          size: eb('size', '-', Number(old.size)),
          objects: eb('objects', '-', 1),
        }))
        .where('id', '=', bucket.id)
        .execute();
      return blobsOf(old);
    });
    if (freed) await this.dropBlobs(freed);
    return freed !== null;
  }

  /** The object's bytes (or a range of them), across its blobs, as one stream. */
  async read(obj: ObjectRow, range?: ByteRange): Promise<Readable> {
    const blobs = blobsOf(obj);
    const start = range?.start ?? 0;
    const end = range?.end ?? Number(obj.size) - 1;
    const pieces: { key: string; range: ByteRange }[] = [];
    let offset = 0;
    for (const b of blobs) {
      const from = Math.max(start, offset);
      const to = Math.min(end, offset + b.size - 1);
      if (from <= to)
        pieces.push({ key: b.key, range: { start: from - offset, end: to - offset } });
      offset += b.size;
    }
    const [only] = pieces;
    if (pieces.length === 1 && only) return this.blobs.get(only.key, only.range);
    const out = new PassThrough();
    const blobStore = this.blobs;
    void (async () => {
      try {
        for (const p of pieces) {
          const s = await blobStore.get(p.key, p.range);
          for await (const chunk of s) {
            if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
          }
        }
        out.end();
      } catch (err) {
        out.destroy(err as Error);
      }
    })();
    return out;
  }

  /** Counts bytes sent to a client. */
  /** Stored bytes and transfer per bucket of an account, pending counts written first (billing). */
  async usage(accountId: number) {
    await this.meter.flush();
    return bucketUsage(this.db, accountId);
  }

  sent(bucket: BucketRow, bytes: number): void {
    this.meter.add(bucket.account_id, bucket.id, monthOf(this.clock.nowMs()), bytes);
  }

  /** Deletes every bucket of an account with its objects, uploads and blobs. */
  async removeAccountBuckets(accountId: number): Promise<void> {
    const keys = await this.db.transaction(async (tx) => {
      const buckets = await tx.db
        .selectFrom('obj_buckets')
        .select(['id', 'cluster', 'label'])
        .where('account_id', '=', accountId)
        .execute();
      const ids = buckets.map((b) => b.id);
      if (ids.length === 0) return [];
      const objs = await tx.db
        .selectFrom('obj_objects')
        .select('blobs')
        .where('bucket_id', 'in', ids)
        .execute();
      const parts = await tx.db
        .selectFrom('obj_parts')
        .innerJoin('obj_uploads', 'obj_uploads.id', 'obj_parts.upload_id')
        .select('obj_parts.blob')
        .where('obj_uploads.bucket_id', 'in', ids)
        .execute();
      await tx.db.deleteFrom('obj_buckets').where('id', 'in', ids).execute();
      await dropKeyAccess(tx, accountId, buckets);
      return [...objs.flatMap((o) => blobsOf(o).map((b) => b.key)), ...parts.map((p) => p.blob)];
    });
    await this.dropBlobs(keys);
  }

  /**
   * Removes blobs no object or upload part references, last written before `olderThanMs`
   * (blobs of writes under way are younger), and partial writes a crash left. A crash between a
   * blob's write and its publication, or between a commit and the removal of the blobs it freed,
   * leaves such blobs; nothing else does. Returns how many were removed. `olderThanMs` is
   * compared with the files' own times (real time). Not scheduled: the store must belong to
   * this database (a process started on another database with the same data directory would
   * see every blob as an orphan), so an operator runs it knowingly.
   */
  async sweepOrphans(olderThanMs: number): Promise<number> {
    const used = new Set<string>();
    const objects = await this.db.db.selectFrom('obj_objects').select('blobs').execute();
    for (const o of objects) for (const b of blobsOf(o)) used.add(b.key);
    const parts = await this.db.db.selectFrom('obj_parts').select('blob').execute();
    for (const p of parts) used.add(p.blob);
    let n = await this.blobs.sweepPartial(olderThanMs);
    for await (const key of this.blobs.list()) {
      if (used.has(key)) continue;
      const h = await this.blobs.head(key);
      if (h && h.modifiedMs < olderThanMs) {
        await this.blobs.delete(key);
        n++;
      }
    }
    return n;
  }

  findBucket(cluster: string, label: string) {
    return findBucket(this.db, cluster, label);
  }
}
