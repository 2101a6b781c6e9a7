import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Insertable } from 'kysely';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import {
  type BlobStore,
  BlobTooLargeError,
  type ByteRange,
  type PutResult,
} from '../../storage/index.js';
import { meter } from '../../storage/blob-store.js';
import { type CustomerKey, decryptor, encryptor } from './s3/s3.sse.js';
import {
  type BucketRow,
  blobsOf,
  bucketUsage,
  countTransfer,
  dropKeyAccess,
  findBucket,
  findLatest,
  findVersion,
  monthOf,
  type ObjectRow,
} from './objects.repository.js';
import { TransferMeter } from './objects.meter.js';
import type { BlobRef, ObjObjectsTable, ObjectAcl } from './objects.table.js';
import { S3Error, s3errors } from './s3/s3.errors.js';
import { BYTES_PER_ENDPOINT, clusterUsage, OBJECTS_PER_ENDPOINT } from './objects.quotas.js';

/**
 * A version id: 32 URL-safe characters, the version row's id (10 base-36 digits) and 22 random
 * ones. Opaque to clients, as RGW's; the row id in it keeps a listing's version id marker a
 * position even after that version was deleted (clean-up tools delete the page they listed,
 * then ask for the next one after it).
 */
export function versionIdOf(rowId: number): string {
  return `${rowId.toString(36).padStart(10, '0')}${randomBytes(17).toString('base64url').slice(0, 22)}`;
}

/** The row id a version id carries, or undefined ('null', or not one of ours). */
export function rowIdOfVersion(versionId: string): number | undefined {
  const m = /^([0-9a-z]{10})[A-Za-z0-9_-]{22}$/.exec(versionId);
  return m ? Number.parseInt(m[1] as string, 36) : undefined;
}

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

/** What an S3 write sets beside the bytes (defaults: the bucket owner's, no tags, no lock). */
export interface VersionFields {
  /** JSON grants when `acl` is 'custom'. */
  grants?: string | null;
  /** The writing account, when it is not the bucket's owner. */
  ownerId?: number | null;
  tags?: string | null;
  lockMode?: string | null;
  lockUntil?: string | null;
  legalHold?: boolean;
  sse?: string | null;
}

/** What a publish or a delete did to the name's versions. */
export interface VersionResult {
  /** The version written (or removed); 'null' for the null version. */
  versionId: string;
  /** The version is a delete marker (written, or removed). */
  deleteMarker: boolean;
  /** The stored row (publish only). */
  row?: ObjectRow;
}

type LockedBucket = Pick<BucketRow, 'id' | 'versioning'>;

/**
 * Objects: bytes in the BlobStore under fresh keys, metadata in the database. A write streams
 * into a new blob, then one transaction publishes the row, adjusts the bucket's size and count
 * and queues the replaced blobs for removal after commit. Readers see the old object or the new
 * one, never a partial one.
 *
 * Versions: in a bucket whose versioning is Enabled each write adds a version with a fresh id
 * and a delete adds a delete marker; otherwise (never enabled, or Suspended) a write replaces
 * the null version, and a delete removes it (Suspended: leaving a null delete marker). The
 * bucket's `objects` counts every version and marker, `size` the bytes of every version.
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

  /**
   * Streams a body into a new blob, checking its digests; the blob is removed on failure. With
   * a customer key (SSE-C) the blob holds the encrypted bytes, and the digests (and so the
   * ETag) are those of the plain bytes.
   */
  async store(
    body: Readable,
    want: { sha256?: string; md5Base64?: string },
    maxBytes: number,
    key?: CustomerKey,
  ) {
    const blobKey = this.blobs.newKey();
    let res: PutResult;
    let source: Readable = body;
    let plain: (() => PutResult) | undefined;
    if (key) {
      const m = meter(maxBytes);
      const enc = encryptor(key, blobKey);
      source = body.pipe(m.stream).pipe(enc);
      body.on('error', (e) => m.stream.destroy(e));
      m.stream.on('error', (e) => enc.destroy(e));
      plain = m.result;
    }
    try {
      res = await this.blobs.put(blobKey, source, { maxBytes });
    } catch (err) {
      if (err instanceof BlobTooLargeError) throw s3errors.entityTooLarge();
      throw err;
    }
    if (plain) res = plain();
    const md5Ok =
      want.md5Base64 === undefined ||
      Buffer.from(res.md5, 'hex').toString('base64') === want.md5Base64;
    const shaOk = want.sha256 === undefined || want.sha256 === res.sha256;
    if (!md5Ok || !shaOk) {
      await this.blobs.delete(blobKey);
      throw md5Ok ? s3errors.sha256Mismatch() : s3errors.badDigest();
    }
    return { key: blobKey, ...res };
  }

  /** Locks the bucket row for the change and reads its versioning (it may have changed). */
  private async lockBucket(tx: Database, bucket: BucketRow): Promise<LockedBucket> {
    const b = await tx
      .forUpdate(
        tx.db.selectFrom('obj_buckets').select(['id', 'versioning']).where('id', '=', bucket.id),
      )
      .executeTakeFirst();
    if (!b) throw s3errors.noSuchBucket(bucket.label);
    return b;
  }

  /**
   * The `obj-objects` and `obj-bytes` quotas of the bucket's account in its endpoint, after a
   * write counted (RGW: 403 QuotaExceeded; the transaction is undone).
   */
  private async withinQuota(tx: Database, bucketId: number): Promise<void> {
    const b = await tx.db
      .selectFrom('obj_buckets')
      .select(['account_id', 'cluster'])
      .where('id', '=', bucketId)
      .executeTakeFirst();
    if (!b) return;
    const u = await clusterUsage(tx, b.account_id, b.cluster);
    if (u.objects > OBJECTS_PER_ENDPOINT || u.bytes > BYTES_PER_ENDPOINT)
      throw new S3Error(403, 'QuotaExceeded', 'Quota exceeded');
  }

  /** Adjusts the bucket's counters by a number of versions and bytes. */
  private async count(tx: Database, bucketId: number, versions: number, bytes: number) {
    if (versions === 0 && bytes === 0) return;
    await tx.db
      .updateTable('obj_buckets')
      .set((eb) => ({
        size: eb('size', '+', bytes),
        objects: eb('objects', '+', versions),
      }))
      .where('id', '=', bucketId)
      .execute();
  }

  /**
   * Removes the null version of a name (it is being replaced), returning its blobs; the latest
   * row stays marked as such until the caller writes the new latest.
   */
  private async dropNullVersion(tx: Database, bucketId: number, name: string) {
    const old = await findVersion(tx, bucketId, name, 'null');
    if (!old) return [];
    await tx.db.deleteFrom('obj_objects').where('id', '=', old.id).execute();
    await this.count(tx, bucketId, -1, -Number(old.size));
    return blobsOf(old);
  }

  /** Makes the name's newest remaining version its latest (after its latest went away). */
  private async promoteNewest(tx: Database, bucketId: number, name: string): Promise<void> {
    const newest = await tx.db
      .selectFrom('obj_objects')
      .select('id')
      .where('bucket_id', '=', bucketId)
      .where('name', '=', name)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (newest)
      await tx.db
        .updateTable('obj_objects')
        .set({ is_latest: 1 })
        .where('id', '=', newest.id)
        .execute();
  }

  /** Writes a new latest row for a name, after the previous latest stepped down. */
  private async insertLatest(
    tx: Database,
    bucket: LockedBucket,
    name: string,
    row: Omit<Insertable<ObjObjectsTable>, 'bucket_id' | 'name' | 'version_id' | 'is_latest'>,
  ): Promise<{ row: ObjectRow; freed: BlobRef[] }> {
    const versioned = bucket.versioning === 'Enabled';
    const freed = versioned ? [] : await this.dropNullVersion(tx, bucket.id, name);
    await tx.db
      .updateTable('obj_objects')
      .set({ is_latest: 0 })
      .where('bucket_id', '=', bucket.id)
      .where('name', '=', name)
      .where('is_latest', '=', 1)
      .execute();
    let inserted = await tx.db
      .insertInto('obj_objects')
      .values({
        bucket_id: bucket.id,
        name,
        version_id: versioned ? `pending-${randomBytes(12).toString('hex')}` : 'null',
        is_latest: 1,
        ...row,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (versioned) {
      inserted = await tx.db
        .updateTable('obj_objects')
        .set({ version_id: versionIdOf(inserted.id) })
        .where('id', '=', inserted.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    await this.count(tx, bucket.id, 1, Number(row.size));
    await this.withinQuota(tx, bucket.id);
    return { row: inserted, freed };
  }

  /** Publishes an object made of `blobs` as the name's latest version. */
  async publish(
    bucket: BucketRow,
    name: string,
    blobs: BlobRef[],
    etag: string,
    o: Omit<NewObject, 'sha256' | 'md5Base64'> & VersionFields,
    inBytes: number,
    /** Runs inside the publishing transaction (a multipart upload removes itself). */
    also?: (tx: Database, row: ObjectRow) => Promise<void>,
    /** Conditions on the current object (If-Match, If-None-Match), checked under the lock. */
    check?: (current: ObjectRow | undefined) => void,
  ): Promise<VersionResult> {
    const size = blobs.reduce((n, b) => n + b.size, 0);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const b = await this.lockBucket(tx, bucket);
      if (check) {
        const latest = await findLatest(tx, bucket.id, name);
        check(latest && latest.delete_marker === 0 ? latest : undefined);
      }
      const { row, freed } = await this.insertLatest(tx, b, name, {
        size,
        etag,
        content_type: o.contentType,
        acl: o.acl,
        grants: o.grants ?? null,
        owner_id: o.ownerId ?? null,
        metadata: JSON.stringify(o.metadata),
        blobs: JSON.stringify(blobs),
        last_modified: now,
        tags: o.tags ?? null,
        lock_mode: o.lockMode ?? null,
        lock_until: o.lockUntil ?? null,
        legal_hold: o.legalHold ? 1 : 0,
        sse: o.sse ?? null,
      });
      await countTransfer(
        tx,
        bucket.account_id,
        bucket.id,
        monthOf(this.clock.nowMs()),
        'bytes_in',
        inBytes,
      );
      if (also) await also(tx, row);
      tx.onCommit(() => this.dropBlobs(freed));
      return { versionId: row.version_id, deleteMarker: false, row };
    });
  }

  async dropBlobs(blobs: BlobRef[] | string[]): Promise<void> {
    for (const b of blobs) await this.blobs.delete(typeof b === 'string' ? b : b.key);
  }

  /**
   * Deletes as S3's DeleteObject does. With a version id: that version goes for good (its
   * blobs after commit; the next newest becomes the latest), after `guard` accepted it. Without
   * one: a versioned bucket gets a delete marker; an unversioned one loses the object; a
   * suspended one loses its null version and gets a null delete marker. Returns undefined when
   * there was nothing to delete (no error, as S3).
   */
  async remove(
    bucket: BucketRow,
    name: string,
    opts: {
      versionId?: string;
      guard?: (row: ObjectRow) => void;
      /**
       * A conditional delete's test of its target (the version, else the latest version, a delete
       * marker too), in the transaction: it throws when the condition fails. With a condition, a
       * missing target is not deleted (no marker is written) and is no error.
       */
      precondition?: (row: ObjectRow) => void;
      db?: Database;
    } = {},
  ): Promise<VersionResult | undefined> {
    return (opts.db ?? this.db).transaction(async (tx) => {
      const b = await this.lockBucket(tx, bucket);
      if (opts.versionId !== undefined) {
        const row = await findVersion(tx, bucket.id, name, opts.versionId);
        if (!row) return undefined;
        opts.precondition?.(row);
        opts.guard?.(row);
        await tx.db.deleteFrom('obj_objects').where('id', '=', row.id).execute();
        await this.count(tx, bucket.id, -1, -Number(row.size));
        if (row.is_latest === 1) await this.promoteNewest(tx, bucket.id, name);
        const freed = blobsOf(row);
        tx.onCommit(() => this.dropBlobs(freed));
        return { versionId: row.version_id, deleteMarker: row.delete_marker === 1 };
      }
      if (b.versioning === 'Enabled' || b.versioning === 'Suspended') {
        if (opts.precondition) {
          const latest = await findLatest(tx, bucket.id, name);
          if (!latest) return undefined;
          opts.precondition(latest);
        }
        // S3 writes a marker even when the name has no version.
        const { row, freed } = await this.insertLatest(tx, b, name, {
          delete_marker: 1,
          size: 0,
          etag: '',
          content_type: '',
          acl: 'private',
          metadata: '{}',
          blobs: '[]',
          last_modified: this.now(),
        });
        tx.onCommit(() => this.dropBlobs(freed));
        return { versionId: row.version_id, deleteMarker: true };
      }
      const old = await findLatest(tx, bucket.id, name);
      if (!old) return undefined;
      opts.precondition?.(old);
      opts.guard?.(old);
      await tx.db
        .deleteFrom('obj_objects')
        .where('bucket_id', '=', bucket.id)
        .where('name', '=', name)
        .execute();
      await this.count(tx, bucket.id, -1, -Number(old.size));
      const freed = blobsOf(old);
      tx.onCommit(() => this.dropBlobs(freed));
      return { versionId: 'null', deleteMarker: false };
    });
  }

  /**
   * The object's bytes (or a range of them), across its blobs, as one stream; an SSE-C version
   * is decrypted with its customer key.
   */
  async read(
    obj: Pick<ObjectRow, 'blobs' | 'size'>,
    range?: ByteRange,
    key?: CustomerKey,
  ): Promise<Readable> {
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
    if (pieces.length === 1 && only && !key) return this.blobs.get(only.key, only.range);
    const open = (p: (typeof pieces)[number]) => this.openPiece(p, key);
    // Each blob's stream is closed when its bytes are sent or the reader goes away (an aborted
    // download destroys this stream, which returns the generator, which destroys the blob's).
    return Readable.from(
      (async function* () {
        for (const p of pieces) {
          const s = await open(p);
          try {
            for await (const chunk of s) yield chunk as Buffer;
          } finally {
            s.destroy();
          }
        }
      })(),
      { objectMode: false },
    );
  }

  /** One blob's range, decrypted when the version is customer-encrypted. */
  private async openPiece(
    p: { key: string; range: ByteRange },
    key?: CustomerKey,
  ): Promise<Readable> {
    if (!key) return this.blobs.get(p.key, p.range);
    const aligned = p.range.start - (p.range.start % 16);
    const raw = await this.blobs.get(p.key, { start: aligned, end: p.range.end });
    const { input, output } = decryptor(key, p.key, aligned, p.range.start - aligned);
    raw.pipe(input);
    raw.on('error', (e) => output.destroy(e));
    output.on('close', () => raw.destroy());
    return output;
  }

  /** Stored bytes and transfer per bucket of an account, pending counts written first (billing). */
  async usage(accountId: number) {
    await this.meter.flush();
    return bucketUsage(this.db, accountId);
  }

  /** Counts bytes sent to a client. */
  sent(bucket: BucketRow, bytes: number): void {
    this.meter.add(bucket.account_id, bucket.id, monthOf(this.clock.nowMs()), bytes);
  }

  /** Deletes every bucket of an account with its objects, uploads and blobs. */
  async removeAccountBuckets(accountId: number): Promise<void> {
    // Every object row of the account goes: much of the database may change.
    const keys = await this.db.transactionAlone(async (tx) => {
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
