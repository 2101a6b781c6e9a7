import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Selectable } from 'kysely';
import type { BucketRow } from '../objects.repository.js';
import type { ObjUploadsTable } from '../objects.table.js';
import { authorize } from './s3.access.js';
import { header } from './s3.auth.js';
import type { S3Env } from './s3.buckets.js';
import { body, isoDate, quoted, type S3Call, send, smallBody } from './s3.context.js';
import { s3errors } from './s3.errors.js';
import { contentTypeOf, metadataOf, writeConditions } from './s3.headers.js';
import { S3Objects } from './s3.objects.js';
import { type CustomerKey, customerKey, sseHeaders, sseRecord, type SseRecord } from './s3.sse.js';
import { rootOf, text, xml } from './s3.xml.js';

const MIN_PART = 5 * 1024 * 1024;
const MAX_PART = 5 * 1024 ** 3;
const MAX_PARTS = 10_000;

type UploadRow = Selectable<ObjUploadsTable>;

function partNumber(c: S3Call): number {
  const t = c.query.get('partNumber') ?? '';
  const n = Number(t);
  if (!/^\d+$/.test(t) || n < 1 || n > MAX_PARTS)
    throw s3errors.invalidArgument('Part number must be an integer between 1 and 10000, inclusive');
  return n;
}

function intParam(c: S3Call, name: string, fallback: number): number {
  const t = c.query.get(name);
  if (t === undefined) return fallback;
  if (!/^\d+$/.test(t)) throw s3errors.invalidArgument(`Provided ${name} not an integer`);
  return Number(t);
}

/** The key a part of an SSE-C upload is written with: the upload's, given again. */
function partKey(c: S3Call, up: UploadRow): CustomerKey | undefined {
  const given = customerKey(c.req);
  if (!up.sse) {
    if (given)
      throw s3errors.invalidRequest(
        'The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.',
      );
    return undefined;
  }
  const rec = JSON.parse(up.sse) as SseRecord;
  if (!given || given.keyMd5 !== rec.keyMd5)
    throw s3errors.invalidRequest(
      'The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.',
    );
  return given;
}

/**
 * Multipart uploads: parts are blobs; completing one publishes them as the object's blobs (a
 * version, as a PutObject would make). A completed upload is remembered, so a repeated
 * CompleteMultipartUpload is answered with its object, as S3 answers it.
 */
export class S3Multipart {
  private readonly objects: S3Objects;

  constructor(private readonly e: S3Env) {
    this.objects = new S3Objects(e);
  }

  private async write(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      {
        action: 's3:PutObject',
        bucket: b,
        key: c.key as string,
        acl: { on: 'bucket', permission: 'WRITE' },
        write: true,
      },
      this.e.accounts,
    );
  }

  private async upload(c: S3Call, b: BucketRow, allowCompleted = false): Promise<UploadRow> {
    const id = c.query.get('uploadId') ?? '';
    const row = await this.e.db.db
      .selectFrom('obj_uploads')
      .selectAll()
      .where('upload_id', '=', id)
      .where('bucket_id', '=', b.id)
      .where('name', '=', c.key as string)
      .executeTakeFirst();
    if (!row || (row.completed !== null && !allowCompleted)) throw s3errors.noSuchUpload();
    return row;
  }

  async create(c: S3Call, b: BucketRow): Promise<void> {
    await this.write(c, b);
    const f = await this.objects.writeFields(c, b);
    const uploadId = randomBytes(24).toString('base64url');
    await this.e.db.db
      .insertInto('obj_uploads')
      .values({
        upload_id: uploadId,
        bucket_id: b.id,
        name: c.key as string,
        content_type: contentTypeOf(c),
        acl: f.acl,
        grants: f.grants,
        owner_id: f.ownerId,
        metadata: JSON.stringify(metadataOf(c)),
        tags: f.tags,
        lock_mode: f.lockMode,
        lock_until: f.lockUntil,
        legal_hold: f.legalHold ? 1 : 0,
        sse: f.key ? sseRecord(f.key) : null,
        completed: null,
        created: this.e.data.now(),
      })
      .execute();
    send(
      c,
      200,
      xml('InitiateMultipartUploadResult', { Bucket: b.label, Key: c.key, UploadId: uploadId }),
      sseHeaders(f.key ? sseRecord(f.key) : null),
    );
  }

  /** Records a part's blob (replacing an earlier upload of that part number). */
  private async savePart(
    up: UploadRow,
    n: number,
    stored: { key: string; size: number; md5: string },
  ) {
    const old = await this.e.db.transaction(async (tx) => {
      const live = await tx
        .forUpdate(
          tx.db.selectFrom('obj_uploads').select(['id', 'completed']).where('id', '=', up.id),
        )
        .executeTakeFirst();
      if (!live || live.completed !== null) throw s3errors.noSuchUpload();
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
        last_modified: this.e.data.now(),
        sse: up.sse,
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
    if (old) await this.e.data.blobs.delete(old);
  }

  async part(c: S3Call, b: BucketRow): Promise<void> {
    await this.write(c, b);
    const n = partNumber(c);
    const up = await this.upload(c, b);
    const key = partKey(c, up);
    const input = body(c);
    const stored = await this.e.data.store(input.stream, input, MAX_PART, key);
    try {
      await this.savePart(up, n, stored);
    } catch (err) {
      await this.e.data.blobs.delete(stored.key);
      throw err;
    }
    send(c, 200, undefined, { etag: quoted(stored.md5), ...sseHeaders(up.sse) });
  }

  /** UploadPartCopy: a part from a version of an object (or a byte range of it). */
  async partCopy(c: S3Call, b: BucketRow): Promise<void> {
    await this.write(c, b);
    const n = partNumber(c);
    const up = await this.upload(c, b);
    const key = partKey(c, up);
    const s = await this.objects.copySource(c);
    const size = Number(s.row.size);
    let range: { start: number; end: number } | undefined;
    const r = header(c.req, 'x-amz-copy-source-range');
    if (r !== undefined) {
      const m = /^bytes=(\d+)-(\d+)$/.exec(r.trim());
      if (!m || Number(m[1]) > Number(m[2]))
        throw s3errors.invalidArgument(
          `Range specified is not valid for source object of size: ${size}`,
        );
      // Well formed but past the source's end: RGW's 416 InvalidRange.
      if (Number(m[2]) >= size) throw s3errors.invalidRange(size);
      range = { start: Number(m[1]), end: Number(m[2]) };
    }
    const length = range ? range.end - range.start + 1 : size;
    if (length > MAX_PART) throw s3errors.entityTooLarge();
    const source = length === 0 ? Readable.from([]) : await this.e.data.read(s.row, range, s.key);
    const stored = await this.e.data.store(source, {}, MAX_PART, key);
    try {
      await this.savePart(up, n, stored);
    } catch (err) {
      await this.e.data.blobs.delete(stored.key);
      throw err;
    }
    send(
      c,
      200,
      xml('CopyPartResult', { LastModified: isoDate(this.e.data.now()), ETag: quoted(stored.md5) }),
      s.bucket.versioning !== null ? { 'x-amz-copy-source-version-id': s.row.version_id } : {},
    );
  }

  /**
   * CompleteMultipartUpload: the listed parts (ascending, each but the last at least 5 MiB, each
   * with its ETag) become the object; the write conditions apply. Once completed, the same
   * request is answered with the object made.
   */
  async complete(c: S3Call, b: BucketRow): Promise<void> {
    await this.write(c, b);
    const up = await this.upload(c, b, true);
    const doc = rootOf<{ Part?: { PartNumber?: unknown; ETag?: unknown }[] }>(
      await smallBody(c, 4 * 1024 * 1024),
      'CompleteMultipartUpload',
    );
    const listed = doc.Part ?? [];
    if (listed.length === 0) throw s3errors.malformedXml();
    const result = (versionId: string, etag: string) => {
      send(
        c,
        200,
        xml('CompleteMultipartUploadResult', {
          Location: `/${b.label}/${up.name}`,
          Bucket: b.label,
          Key: up.name,
          ETag: quoted(etag),
        }),
        {
          ...(versionId !== 'null' ? { 'x-amz-version-id': versionId } : {}),
          ...sseHeaders(up.sse),
        },
      );
    };
    if (up.completed !== null) {
      const done = JSON.parse(up.completed) as { versionId: string; etag: string };
      const still = await this.e.db.db
        .selectFrom('obj_objects')
        .select('id')
        .where('bucket_id', '=', b.id)
        .where('name', '=', up.name)
        .where('version_id', '=', done.versionId)
        .executeTakeFirst();
      if (!still) throw s3errors.noSuchUpload();
      result(done.versionId, done.etag);
      return;
    }
    const parts = await this.e.db.db
      .selectFrom('obj_parts')
      .selectAll()
      .where('upload_id', '=', up.id)
      .execute();
    const byNumber = new Map(parts.map((p) => [p.part_number, p]));
    // The list is in ascending order. A part number listed twice in a row counts once, with its
    // last ETag (RGW reads the list into a map: a client that sent a part again and kept both
    // answers completes with the upload that finished last).
    const wanted: { n: number; etag: string }[] = [];
    for (const p of listed) {
      const t = text(p.PartNumber) ?? '';
      const n = Number(t);
      if (!/^\d+$/.test(t)) throw s3errors.malformedXml();
      const etag = (text(p.ETag) ?? '').replace(/^"|"$/g, '');
      const prev = wanted[wanted.length - 1];
      if (prev && n < prev.n) throw s3errors.invalidPartOrder();
      if (prev && n === prev.n) prev.etag = etag;
      else wanted.push({ n, etag });
    }
    const chosen = [];
    for (const [i, w] of wanted.entries()) {
      const have = byNumber.get(w.n);
      if (!have || have.etag !== w.etag) throw s3errors.invalidPart();
      if (i < wanted.length - 1 && Number(have.size) < MIN_PART) throw s3errors.entityTooSmall();
      chosen.push(have);
    }
    const md5 = createHash('md5');
    for (const p of chosen) md5.update(Buffer.from(p.etag, 'hex'));
    const etag = `${md5.digest('hex')}-${chosen.length}`;
    const used = new Set(chosen.map((p) => p.blob));
    const check = writeConditions(c);
    const r = await this.e.data.publish(
      b,
      up.name,
      chosen.map((p) => ({ key: p.blob, size: Number(p.size) })),
      etag,
      {
        contentType: up.content_type,
        acl: up.acl,
        grants: up.grants,
        ownerId: up.owner_id,
        metadata: JSON.parse(up.metadata) as Record<string, string>,
        tags: up.tags,
        lockMode: up.lock_mode,
        lockUntil: up.lock_until,
        legalHold: up.legal_hold === 1,
        sse: up.sse,
      },
      chosen.reduce((n, p) => n + Number(p.size), 0),
      async (tx, row) => {
        const gone = await tx.db
          .updateTable('obj_uploads')
          .set({ completed: JSON.stringify({ versionId: row.version_id, etag }) })
          .where('id', '=', up.id)
          .where('completed', 'is', null)
          .executeTakeFirst();
        if (Number(gone.numUpdatedRows) !== 1) throw s3errors.noSuchUpload();
        await tx.db.deleteFrom('obj_parts').where('upload_id', '=', up.id).execute();
        // Only the latest completed upload of a name is remembered.
        await tx.db
          .deleteFrom('obj_uploads')
          .where('bucket_id', '=', b.id)
          .where('name', '=', up.name)
          .where('completed', 'is not', null)
          .where('id', '!=', up.id)
          .execute();
      },
      check,
    );
    await this.e.data.dropBlobs(parts.filter((p) => !used.has(p.blob)).map((p) => p.blob));
    result(r.versionId, etag);
  }

  async abort(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      {
        action: 's3:AbortMultipartUpload',
        bucket: b,
        key: c.key as string,
        acl: { on: 'bucket', permission: 'WRITE' },
        write: true,
      },
      this.e.accounts,
    );
    const up = await this.upload(c, b);
    const blobs = await this.e.db.transaction(async (tx) => {
      const parts = await tx.db
        .selectFrom('obj_parts')
        .select('blob')
        .where('upload_id', '=', up.id)
        .execute();
      const gone = await tx.db
        .deleteFrom('obj_uploads')
        .where('id', '=', up.id)
        .where('completed', 'is', null)
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) throw s3errors.noSuchUpload();
      return parts.map((p) => p.blob);
    });
    await this.e.data.dropBlobs(blobs);
    send(c, 204);
  }

  private async people(b: BucketRow, up: UploadRow) {
    const id = await this.e.accounts.canonicalId(up.owner_id ?? b.account_id);
    const who = { ID: id, DisplayName: id };
    return { Initiator: who, Owner: who };
  }

  async listParts(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      {
        action: 's3:ListMultipartUploadParts',
        bucket: b,
        key: c.key as string,
        acl: { on: 'bucket', permission: 'READ' },
        write: false,
      },
      this.e.accounts,
    );
    const up = await this.upload(c, b);
    const marker = intParam(c, 'part-number-marker', 0);
    const max = Math.min(intParam(c, 'max-parts', 1000), 1000);
    const rows = await this.e.db.db
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
        ...(await this.people(b, up)),
        StorageClass: 'STANDARD',
        PartNumberMarker: marker,
        ...(page.length > 0 ? { NextPartNumberMarker: page[page.length - 1]?.part_number } : {}),
        MaxParts: max,
        IsTruncated: truncated,
        Part: page.map((p) => ({
          PartNumber: p.part_number,
          LastModified: isoDate(p.last_modified),
          ETag: quoted(p.etag),
          Size: Number(p.size),
        })),
      }),
    );
  }

  /**
   * ListMultipartUploads: unfinished uploads by key, then in the order they began; `prefix`,
   * `delimiter` (common prefixes), `key-marker` and `upload-id-marker` page them.
   */
  async listUploads(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      {
        action: 's3:ListBucketMultipartUploads',
        bucket: b,
        acl: { on: 'bucket', permission: 'READ' },
        write: false,
      },
      this.e.accounts,
    );
    const prefix = c.query.get('prefix') ?? '';
    const delimiter = c.query.get('delimiter') ?? '';
    const keyMarker = c.query.get('key-marker') ?? '';
    const idMarker = c.query.get('upload-id-marker') ?? '';
    const max = Math.min(intParam(c, 'max-uploads', 1000), 1000);
    const urlEnc = c.query.get('encoding-type') === 'url';
    const enc = (s: string) => (urlEnc ? encodeURIComponent(s).replace(/%2F/g, '/') : s);
    let q = this.e.db.db
      .selectFrom('obj_uploads')
      .selectAll()
      .where('bucket_id', '=', b.id)
      .where('completed', 'is', null);
    if (prefix !== '') q = q.where('name', '>=', prefix);
    const all = (await q.orderBy('name').orderBy('id').execute()).filter((u) =>
      u.name.startsWith(prefix),
    );
    let markerId = 0;
    if (idMarker !== '') {
      markerId =
        all.find((u) => u.name === keyMarker && u.upload_id === idMarker)?.id ??
        Number.MAX_SAFE_INTEGER;
    }
    const after = all.filter((u) =>
      keyMarker === ''
        ? true
        : idMarker !== ''
          ? u.name > keyMarker || (u.name === keyMarker && u.id > markerId)
          : u.name > keyMarker,
    );
    const uploads: UploadRow[] = [];
    const prefixes: string[] = [];
    let truncated = false;
    for (const u of after) {
      const rest = u.name.slice(prefix.length);
      const at = delimiter !== '' ? rest.indexOf(delimiter) : -1;
      if (at >= 0) {
        const cp = prefix + rest.slice(0, at + delimiter.length);
        if (prefixes.includes(cp)) continue;
        if (uploads.length + prefixes.length === max) {
          truncated = true;
          break;
        }
        prefixes.push(cp);
        continue;
      }
      if (uploads.length + prefixes.length === max) {
        truncated = true;
        break;
      }
      uploads.push(u);
    }
    const last = uploads[uploads.length - 1];
    const entries = [];
    for (const u of uploads) {
      entries.push({
        Key: enc(u.name),
        UploadId: u.upload_id,
        ...(await this.people(b, u)),
        StorageClass: 'STANDARD',
        Initiated: isoDate(u.created),
      });
    }
    send(
      c,
      200,
      xml('ListMultipartUploadsResult', {
        Bucket: b.label,
        KeyMarker: enc(keyMarker),
        UploadIdMarker: idMarker,
        ...(truncated && last
          ? { NextKeyMarker: enc(last.name), NextUploadIdMarker: last.upload_id }
          : {}),
        ...(delimiter !== '' ? { Delimiter: enc(delimiter) } : {}),
        Prefix: enc(prefix),
        MaxUploads: max,
        ...(urlEnc ? { EncodingType: 'url' } : {}),
        IsTruncated: truncated,
        Upload: entries,
        CommonPrefixes: prefixes.map((p) => ({ Prefix: enc(p) })),
      }),
    );
  }
}
