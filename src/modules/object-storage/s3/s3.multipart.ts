import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import type { ObjectData } from '../objects.data.js';
import type { BucketRow } from '../objects.repository.js';
import {
  body,
  canWrite,
  cannedAcl,
  isoDate,
  quoted,
  type S3Call,
  send,
  smallBody,
} from './s3.context.js';
import { s3errors } from './s3.errors.js';
import { contentTypeOf, metadataOf } from './s3.objects.js';
import { parseXml, xml } from './s3.xml.js';

const MIN_PART = 5 * 1024 * 1024;
const MAX_PART = 5 * 1024 ** 3;
const MAX_PARTS = 10_000;

/** Multipart uploads: parts are blobs; completing one publishes them as the object's blobs. */
export class S3Multipart {
  constructor(
    private readonly db: Database,
    private readonly data: ObjectData,
  ) {}

  private async upload(c: S3Call, b: BucketRow) {
    const id = c.query.get('uploadId') ?? '';
    const row = await this.db.db
      .selectFrom('obj_uploads')
      .selectAll()
      .where('upload_id', '=', id)
      .where('bucket_id', '=', b.id)
      .where('name', '=', c.key as string)
      .executeTakeFirst();
    if (!row) throw s3errors.noSuchUpload();
    return row;
  }

  async create(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const uploadId = randomBytes(24).toString('base64url');
    await this.db.db
      .insertInto('obj_uploads')
      .values({
        upload_id: uploadId,
        bucket_id: b.id,
        name: c.key as string,
        content_type: contentTypeOf(c),
        acl: cannedAcl(c) ?? 'private',
        metadata: JSON.stringify(metadataOf(c)),
        created: this.data.now(),
      })
      .execute();
    send(
      c,
      200,
      xml('InitiateMultipartUploadResult', { Bucket: b.label, Key: c.key, UploadId: uploadId }),
    );
  }

  async part(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const n = Number(c.query.get('partNumber'));
    if (!Number.isInteger(n) || n < 1 || n > MAX_PARTS)
      throw s3errors.invalidArgument(
        'Part number must be an integer between 1 and 10000, inclusive',
      );
    const up = await this.upload(c, b);
    const input = body(c);
    const stored = await this.data.store(input.stream, input, MAX_PART);
    const old = await this.db.transaction(async (tx) => {
      const prev = await tx.db
        .selectFrom('obj_parts')
        .select('blob')
        .where('upload_id', '=', up.id)
        .where('part_number', '=', n)
        .executeTakeFirst();
      const row = {
        size: stored.size,
        etag: stored.md5,
        blob: stored.key,
        last_modified: this.data.now(),
      };
      if (prev) {
        await tx.db
          .updateTable('obj_parts')
          .set(row)
          .where('upload_id', '=', up.id)
          .where('part_number', '=', n)
          .execute();
      } else {
        await tx.db
          .insertInto('obj_parts')
          .values({ upload_id: up.id, part_number: n, ...row })
          .execute();
      }
      return prev?.blob;
    });
    if (old) await this.data.blobs.delete(old);
    send(c, 200, undefined, { etag: quoted(stored.md5) });
  }

  async complete(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const up = await this.upload(c, b);
    const doc = parseXml(await smallBody(c)).CompleteMultipartUpload as
      | { Part?: { PartNumber?: string; ETag?: string }[] }
      | undefined;
    const listed = doc?.Part ?? [];
    if (listed.length === 0) throw s3errors.malformedXml();
    const parts = await this.db.db
      .selectFrom('obj_parts')
      .selectAll()
      .where('upload_id', '=', up.id)
      .execute();
    const byNumber = new Map(parts.map((p) => [p.part_number, p]));
    const chosen = [];
    let last = 0;
    for (const [i, p] of listed.entries()) {
      const n = Number(p.PartNumber);
      if (!Number.isInteger(n) || n <= last) throw s3errors.invalidPartOrder();
      last = n;
      const have = byNumber.get(n);
      const etag = (p.ETag ?? '').replace(/^"|"$/g, '');
      if (!have || have.etag !== etag) throw s3errors.invalidPart();
      if (i < listed.length - 1 && Number(have.size) < MIN_PART) throw s3errors.entityTooSmall();
      chosen.push(have);
    }
    const md5 = createHash('md5');
    for (const p of chosen) md5.update(Buffer.from(p.etag, 'hex'));
    const etag = `${md5.digest('hex')}-${chosen.length}`;
    const used = new Set(chosen.map((p) => p.blob));
    await this.data.publish(
      b,
      up.name,
      chosen.map((p) => ({ key: p.blob, size: Number(p.size) })),
      etag,
      {
        contentType: up.content_type,
        acl: up.acl,
        metadata: JSON.parse(up.metadata) as Record<string, string>,
      },
      chosen.reduce((n, p) => n + Number(p.size), 0),
      async (tx) => {
        const gone = await tx.db
          .deleteFrom('obj_uploads')
          .where('id', '=', up.id)
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) !== 1) throw s3errors.noSuchUpload();
      },
    );
    await this.data.dropBlobs(parts.filter((p) => !used.has(p.blob)).map((p) => p.blob));
    send(
      c,
      200,
      xml('CompleteMultipartUploadResult', {
        Location: `/${b.label}/${up.name}`,
        Bucket: b.label,
        Key: up.name,
        ETag: quoted(etag),
      }),
    );
  }

  async abort(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const up = await this.upload(c, b);
    const blobs = await this.db.transaction(async (tx) => {
      const parts = await tx.db
        .selectFrom('obj_parts')
        .select('blob')
        .where('upload_id', '=', up.id)
        .execute();
      await tx.db.deleteFrom('obj_uploads').where('id', '=', up.id).execute();
      return parts.map((p) => p.blob);
    });
    await this.data.dropBlobs(blobs);
    send(c, 204);
  }

  async listParts(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const up = await this.upload(c, b);
    const marker = Number(c.query.get('part-number-marker') ?? '0') || 0;
    const max = Math.min(Number(c.query.get('max-parts') ?? '1000') || 1000, 1000);
    const rows = await this.db.db
      .selectFrom('obj_parts')
      .selectAll()
      .where('upload_id', '=', up.id)
      .where('part_number', '>', marker)
      .orderBy('part_number')
      .limit(max + 1)
      .execute();
    const truncated = rows.length > max;
    const page = rows.slice(0, max);
    send(
      c,
      200,
      xml('ListPartsResult', {
        Bucket: b.label,
        Key: up.name,
        UploadId: up.upload_id,
        PartNumberMarker: marker,
        ...(truncated ? { NextPartNumberMarker: page[page.length - 1]?.part_number } : {}),
        MaxParts: max,
        IsTruncated: truncated,
        Part: page.map((p) => ({
          PartNumber: p.part_number,
          LastModified: isoDate(p.last_modified),
          ETag: quoted(p.etag),
          Size: Number(p.size),
        })),
        StorageClass: 'STANDARD',
      }),
    );
  }

  /** ListMultipartUploads: unfinished uploads of the bucket, by key then upload id. */
  async listUploads(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const prefix = c.query.get('prefix') ?? '';
    const after = c.query.get('key-marker') ?? '';
    const max = Math.min(Number(c.query.get('max-uploads') ?? '1000') || 1000, 1000);
    let q = this.db.db.selectFrom('obj_uploads').selectAll().where('bucket_id', '=', b.id);
    if (prefix !== '') q = q.where('name', '>=', prefix);
    if (after !== '') q = q.where('name', '>', after);
    const rows = (
      await q
        .orderBy('name')
        .orderBy('id')
        .limit(max + 1)
        .execute()
    ).filter((r) => r.name.startsWith(prefix));
    const truncated = rows.length > max;
    const page = rows.slice(0, max);
    const last = page[page.length - 1];
    send(
      c,
      200,
      xml('ListMultipartUploadsResult', {
        Bucket: b.label,
        KeyMarker: after,
        UploadIdMarker: '',
        ...(truncated && last
          ? { NextKeyMarker: last.name, NextUploadIdMarker: last.upload_id }
          : {}),
        Prefix: prefix,
        MaxUploads: max,
        IsTruncated: truncated,
        Upload: page.map((u) => ({
          Key: u.name,
          UploadId: u.upload_id,
          Initiated: isoDate(u.created),
          StorageClass: 'STANDARD',
        })),
      }),
    );
  }
}
