import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MAX_PUT_BYTES } from '../objects.data.js';
import {
  type BucketRow,
  blobsOf,
  findBucket,
  findLatest,
  findObject,
  findVersion,
  type ObjectRow,
} from '../objects.repository.js';
import { authorize, effectiveCaller, versionedAction } from './s3.access.js';
import { aclDocument, cannedGrants, grantsOf, requestGrants, storedAcl } from './s3.acl.js';
import { header } from './s3.auth.js';
import { aclOfRequest, type S3Env } from './s3.buckets.js';
import {
  body,
  httpDate,
  isoDate,
  msOf,
  quoted,
  type S3Call,
  send,
  smallBody,
} from './s3.context.js';
import { S3Error, s3errors } from './s3.errors.js';
import {
  applyOverrides,
  checkExpectedOwner,
  checkStorageClass,
  contentTypeOf,
  copySourceConditions,
  etagMatches,
  metadataOf,
  objectHeaders,
  parseRange,
  readConditions,
  writeConditions,
} from './s3.headers.js';
import { bypassGovernance, lockBlocksDelete, lockForWrite } from './s3.lock.js';
import { customerKey, keyForRead, sseHeaders, sseRecord } from './s3.sse.js';
import { parseTagHeader } from './s3.tags.js';
import { rootOf, text, xml } from './s3.xml.js';

/** The largest object CopyObject copies (S3's limit; larger ones go through UploadPartCopy). */
const MAX_COPY_BYTES = 5 * 1024 ** 3;

/** A `versionId` query parameter, or undefined (an empty one is refused). */
export function versionIdOf(c: S3Call): string | undefined {
  const v = c.query.get('versionId');
  if (v === undefined) return undefined;
  if (v === '') throw s3errors.invalidArgument('Version id cannot be the empty string');
  return v;
}

/** The parts of an object, as its blobs (a single-part object is its one part). */
export function partsOf(o: ObjectRow): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let at = 0;
  for (const b of blobsOf(o)) {
    out.push({ start: at, end: at + b.size - 1 });
    at += b.size;
  }
  return out;
}

/** The source of a copy: `x-amz-copy-source` (`[/]bucket/key[?versionId=…]`, URL-encoded). */
export function parseCopySource(value: string): {
  bucket: string;
  key: string;
  versionId?: string;
} {
  const q = value.indexOf('?');
  const path = q < 0 ? value : value.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : value.slice(q + 1));
  let src: string;
  try {
    src = decodeURIComponent(path).replace(/^\//, '');
  } catch {
    throw s3errors.invalidArgument('Invalid copy source encoding.');
  }
  const slash = src.indexOf('/');
  if (slash <= 0 || slash === src.length - 1)
    throw s3errors.invalidArgument('Invalid copy source object key');
  if (src.includes('\u0000')) throw s3errors.invalidArgument('Invalid copy source object key');
  const versionId = query.get('versionId') ?? undefined;
  return {
    bucket: src.slice(0, slash),
    key: src.slice(slash + 1),
    ...(versionId !== undefined ? { versionId } : {}),
  };
}

export class S3Objects {
  constructor(private readonly e: S3Env) {}

  /** The writer of a new version: its account, unless it writes as the bucket's owner or as anyone. */
  private async writer(c: S3Call, b: BucketRow) {
    const who = effectiveCaller(c, b, true);
    const bucketOwner = await this.e.accounts.canonicalId(b.account_id);
    const ownerId = who !== null && c.caller.accountId !== b.account_id ? c.caller.accountId : null;
    return { owner: ownerId !== null ? (who as string) : bucketOwner, ownerId, bucketOwner };
  }

  /** The ACL, tags, lock and encryption a write asks for, checked before the body is read. */
  async writeFields(c: S3Call, b: BucketRow) {
    checkStorageClass(c);
    const w = await this.writer(c, b);
    const grants =
      (await requestGrants(c.req.headers, w.owner, w.bucketOwner, this.e.accounts)) ??
      cannedGrants('private', w.owner);
    const tagHeader = header(c.req, 'x-amz-tagging');
    const tags = tagHeader !== undefined ? parseTagHeader(tagHeader) : undefined;
    const stored = storedAcl(grants, w.owner);
    return {
      ...w,
      acl: stored.acl,
      grants: stored.grants,
      tags: tags && Object.keys(tags).length > 0 ? JSON.stringify(tags) : null,
      ...lockForWrite(c, b),
      key: customerKey(c.req),
    };
  }

  private requestTags(c: S3Call): Record<string, string[]> {
    const h = header(c.req, 'x-amz-tagging');
    if (h === undefined) return {};
    const tags = parseTagHeader(h);
    const out: Record<string, string[]> = { 's3:requestobjecttagkeys': Object.keys(tags) };
    for (const [k, v] of Object.entries(tags)) out[`s3:requestobjecttag/${k.toLowerCase()}`] = [v];
    return out;
  }

  /** PutObject (and the control plane's pre-signed POST of an object). */
  async put(c: S3Call, b: BucketRow): Promise<void> {
    const key = c.key as string;
    await authorize(
      c,
      {
        action: 's3:PutObject',
        bucket: b,
        key,
        acl: { on: 'bucket', permission: 'WRITE' },
        write: true,
        context: this.requestTags(c),
      },
      this.e.accounts,
    );
    const f = await this.writeFields(c, b);
    const check = writeConditions(c);
    const input = body(c);
    const stored = await this.e.data.store(input.stream, input, MAX_PUT_BYTES, f.key);
    let result: Awaited<ReturnType<typeof this.e.data.publish>>;
    try {
      result = await this.e.data.publish(
        b,
        key,
        [{ key: stored.key, size: stored.size }],
        stored.md5,
        {
          contentType: contentTypeOf(c),
          acl: f.acl,
          grants: f.grants,
          ownerId: f.ownerId,
          metadata: metadataOf(c),
          tags: f.tags,
          lockMode: f.lockMode,
          lockUntil: f.lockUntil,
          legalHold: f.legalHold,
          sse: f.key ? sseRecord(f.key) : null,
        },
        stored.size,
        undefined,
        check,
      );
    } catch (err) {
      await this.e.data.blobs.delete(stored.key);
      throw err;
    }
    send(c, 200, undefined, {
      etag: quoted(stored.md5),
      // The null version (unversioned or suspended bucket) is not named (RGW).
      ...(result.versionId !== 'null' ? { 'x-amz-version-id': result.versionId } : {}),
      ...sseHeaders(result.row?.sse ?? null),
    });
  }

  /** The version a GET, HEAD or ACL request names, with S3's answers for a missing one. */
  private async version(c: S3Call, b: BucketRow, action: string) {
    const key = c.key as string;
    const versionId = versionIdOf(c);
    const row = versionId
      ? await findVersion(this.e.db, b.id, key, versionId)
      : await findLatest(this.e.db, b.id, key);
    if (!row || (row.delete_marker === 1 && versionId === undefined)) {
      // Without the right to list the bucket, a missing key is not told from a forbidden one.
      // The listing asked about is the key itself (RGW): a policy's `s3:prefix` condition sees it.
      await authorize(
        c,
        {
          action: 's3:ListBucket',
          bucket: b,
          acl: { on: 'bucket', permission: 'READ' },
          write: false,
          context: { 's3:prefix': key },
        },
        this.e.accounts,
      );
      if (!row && versionId !== undefined) throw s3errors.noSuchVersion(key, versionId);
      const e = s3errors.noSuchKey(key);
      if (row)
        throw withHeaders(e, { 'x-amz-delete-marker': 'true', 'x-amz-version-id': row.version_id });
      // RGW tells a key that is simply absent by `x-amz-delete-marker: false`.
      throw withHeaders(e, { 'x-amz-delete-marker': 'false' });
    }
    if (row.delete_marker === 1) {
      throw withHeaders(s3errors.methodNotAllowed(), {
        'x-amz-delete-marker': 'true',
        'x-amz-version-id': row.version_id,
        'last-modified': httpDate(row.last_modified),
      });
    }
    await authorize(
      c,
      {
        action: versionId ? versionedAction(action) : action,
        bucket: b,
        key,
        object: row,
        acl: { on: 'object', permission: action.endsWith('Acl') ? 'READ_ACP' : 'READ' },
        write: false,
      },
      this.e.accounts,
    );
    return row;
  }

  /**
   * GetObject and HeadObject: a version (`versionId`) or the latest, its conditional headers,
   * `Range` or `partNumber`, response overrides on signed requests, the customer key of an SSE-C
   * version.
   */
  async get(c: S3Call, b: BucketRow): Promise<void> {
    const o = await this.version(c, b, 's3:GetObject');
    // A part number the object does not have is told before its customer key is asked for (RGW).
    const partText = c.query.get('partNumber');
    const part = partText === undefined ? undefined : partOf(o, partText);
    const key = keyForRead(o.sse, customerKey(c.req));
    const h: Record<string, string | number> = { ...objectHeaders(b, o), ...sseHeaders(o.sse) };
    if (readConditions(c, o) === 'not-modified') {
      const keep = ['etag', 'last-modified', 'x-amz-version-id', 'cache-control', 'expires'];
      const nm: Record<string, string | number> = { 'x-amz-request-id': c.requestId };
      for (const k of keep) if (h[k] !== undefined) nm[k] = h[k] as string | number;
      c.res.writeHead(304, nm);
      c.res.end();
      return;
    }
    applyOverrides(c, h);
    const size = Number(o.size);
    let range: { start: number; end: number } | null;
    if (part !== undefined) {
      if (header(c.req, 'range') !== undefined)
        throw s3errors.invalidRequest(
          'Cannot specify both Range header and partNumber query parameter',
        );
      h['x-amz-mp-parts-count'] = part.count;
      range = size === 0 ? null : part.range;
    } else {
      range = parseRange(header(c.req, 'range'), size);
    }
    const length = range ? range.end - range.start + 1 : size;
    h['content-length'] = length;
    h['x-amz-request-id'] = c.requestId;
    if (range) h['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
    const status =
      range && (partText === undefined || partsOf(o).length > 1 || size !== length) ? 206 : 200;
    if (c.method === 'HEAD' || length === 0) {
      c.res.writeHead(status, h);
      c.res.end();
      return;
    }
    const stream = await this.e.data.read(o, range ?? undefined, key);
    c.res.writeHead(status, h);
    let sent = 0;
    const meter = new PassThrough();
    meter.on('data', (chunk: Buffer) => {
      sent += chunk.length;
    });
    try {
      await pipeline(stream, meter, c.res);
    } finally {
      this.e.data.sent(b, sent);
    }
  }

  /** Whether the caller may bypass GOVERNANCE retention (asked for, and allowed to). */
  private async mayBypass(c: S3Call, b: BucketRow, key: string): Promise<boolean> {
    if (!bypassGovernance(c)) return false;
    try {
      await authorize(
        c,
        {
          action: 's3:BypassGovernanceRetention',
          bucket: b,
          key,
          acl: { on: 'owner' },
          write: true,
        },
        this.e.accounts,
      );
      return true;
    } catch {
      return false;
    }
  }

  /** Deletes one key (or version) as DeleteObject does; refusals are thrown. */
  private async deleteOne(
    c: S3Call,
    b: BucketRow,
    key: string,
    versionId: string | undefined,
    condition?: DeleteCondition,
  ) {
    await authorize(
      c,
      {
        action: versionId ? 's3:DeleteObjectVersion' : 's3:DeleteObject',
        bucket: b,
        key,
        acl: { on: 'bucket', permission: 'WRITE' },
        write: true,
      },
      this.e.accounts,
    );
    const bypass = await this.mayBypass(c, b, key);
    return this.e.data.remove(b, key, {
      ...(versionId !== undefined ? { versionId } : {}),
      ...(condition
        ? { precondition: (row: ObjectRow) => checkDeleteCondition(condition, row) }
        : {}),
      guard: (row) => {
        if (lockBlocksDelete(row, c.nowMs, bypass))
          throw s3errors.accessDenied('forbidden by object lock');
      },
    });
  }

  /**
   * DeleteObject: a version for good (object lock permitting), else a delete marker where
   * versioning is on, else the object. `If-Match`, `x-amz-if-match-last-modified-time` and
   * `x-amz-if-match-size` make it conditional on the target (the version named, else the latest
   * one, a delete marker too), as RGW has them: 412 when one fails; a missing target is a 204.
   */
  async remove(c: S3Call, b: BucketRow): Promise<void> {
    const key = c.key as string;
    const versionId = versionIdOf(c);
    const condition = deleteConditionOf({
      etag: header(c.req, 'if-match'),
      mtime: header(c.req, 'x-amz-if-match-last-modified-time'),
      size: header(c.req, 'x-amz-if-match-size'),
    });
    const r = await this.deleteOne(c, b, key, versionId, condition);
    const h: Record<string, string> = {};
    if (r && (b.versioning !== null || versionId !== undefined)) {
      h['x-amz-version-id'] = r.versionId;
      if (r.deleteMarker) h['x-amz-delete-marker'] = 'true';
    }
    send(c, 204, undefined, h);
  }

  /** DeleteObjects: up to 1000 keys (or versions), each decided as DeleteObject; errors per key. */
  async removeMany(c: S3Call, b: BucketRow): Promise<void> {
    const doc = rootOf<{
      Object?: {
        Key?: unknown;
        VersionId?: unknown;
        ETag?: unknown;
        LastModifiedTime?: unknown;
        Size?: unknown;
      }[];
      Quiet?: unknown;
    }>(await smallBody(c, 2 * 1024 * 1024), 'Delete');
    const objects = doc.Object ?? [];
    if (objects.length === 0 || objects.length > 1000) throw s3errors.malformedXml();
    const quiet = text(doc.Quiet) === 'true';
    const deleted: Record<string, unknown>[] = [];
    const errors: Record<string, unknown>[] = [];
    for (const o of objects) {
      const key = text(o.Key);
      if (key === undefined) throw s3errors.malformedXml();
      const versionId = text(o.VersionId);
      try {
        if (key === '' || key.includes('\u0000') || Buffer.byteLength(key) > 1024)
          throw s3errors.invalidArgument('Invalid key');
        const condition = deleteConditionOf({
          etag: text(o.ETag),
          mtime: text(o.LastModifiedTime),
          size: text(o.Size),
        });
        const r = await this.deleteOne(c, b, key, versionId || undefined, condition);
        if (quiet) continue;
        deleted.push({
          Key: key,
          ...(versionId ? { VersionId: versionId } : {}),
          ...(r?.deleteMarker ? { DeleteMarker: true } : {}),
          ...(r?.deleteMarker && !versionId ? { DeleteMarkerVersionId: r.versionId } : {}),
        });
      } catch (err) {
        if (!(err instanceof S3Error)) throw err;
        errors.push({
          Key: key,
          ...(versionId ? { VersionId: versionId } : {}),
          Code: err.code,
          Message: err.message,
        });
      }
    }
    send(c, 200, xml('DeleteResult', { Deleted: deleted, Error: errors }));
  }

  /** The source version of a copy, readable by the caller, and its customer key. */
  async copySource(c: S3Call) {
    const src = parseCopySource(header(c.req, 'x-amz-copy-source') as string);
    const sb = await findBucket(this.e.db, c.cluster, src.bucket);
    if (!sb) throw s3errors.noSuchBucket(src.bucket);
    checkExpectedOwner(
      c,
      await this.e.accounts.canonicalId(sb.account_id),
      'x-amz-source-expected-bucket-owner',
    );
    const row = src.versionId
      ? await findVersion(this.e.db, sb.id, src.key, src.versionId)
      : await findLatest(this.e.db, sb.id, src.key);
    if (row?.delete_marker === 1 && src.versionId)
      throw s3errors.invalidRequest(
        'The source of a copy request may not specifically refer to a delete marker by version id.',
      );
    await authorize(
      c,
      {
        action: src.versionId ? 's3:GetObjectVersion' : 's3:GetObject',
        bucket: sb,
        key: src.key,
        ...(row && row.delete_marker === 0 ? { object: row } : {}),
        acl: { on: 'object', permission: 'READ' },
        write: false,
      },
      this.e.accounts,
    );
    if (!row || row.delete_marker === 1) {
      if (src.versionId) throw s3errors.noSuchVersion(src.key, src.versionId);
      throw s3errors.noSuchKey(src.key);
    }
    copySourceConditions(c, row);
    return { src, bucket: sb, row, key: keyForRead(row.sse, customerKey(c.req, true)) };
  }

  /**
   * CopyObject: a version of an object in this cluster into this bucket; metadata and tags are
   * copied or replaced (the directives); the ACL, lock and encryption are the request's.
   */
  async copy(c: S3Call, b: BucketRow): Promise<void> {
    const key = c.key as string;
    await authorize(
      c,
      {
        action: 's3:PutObject',
        bucket: b,
        key,
        acl: { on: 'bucket', permission: 'WRITE' },
        write: true,
        context: this.requestTags(c),
      },
      this.e.accounts,
    );
    const directive = header(c.req, 'x-amz-metadata-directive') ?? 'COPY';
    const tagDirective = header(c.req, 'x-amz-tagging-directive') ?? 'COPY';
    if (directive !== 'COPY' && directive !== 'REPLACE')
      throw s3errors.invalidArgument('Unknown metadata directive.');
    if (tagDirective !== 'COPY' && tagDirective !== 'REPLACE')
      throw s3errors.invalidArgument('Unknown tagging directive.');
    const s = await this.copySource(c);
    const f = await this.writeFields(c, b);
    const replace = directive === 'REPLACE';
    if (
      s.bucket.id === b.id &&
      s.src.key === key &&
      !s.src.versionId &&
      !replace &&
      !f.key &&
      !s.row.sse &&
      header(c.req, 'x-amz-storage-class') === undefined &&
      header(c.req, 'x-amz-website-redirect-location') === undefined
    )
      throw s3errors.invalidRequest(
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    if (Number(s.row.size) > MAX_COPY_BYTES)
      throw s3errors.invalidRequest(
        `The specified copy source is larger than the maximum allowable size for a copy source: ${MAX_COPY_BYTES}`,
      );
    const stored = await this.e.data.store(
      await this.e.data.read(s.row, undefined, s.key),
      {},
      Number.POSITIVE_INFINITY,
      f.key,
    );
    let result: Awaited<ReturnType<typeof this.e.data.publish>>;
    try {
      result = await this.e.data.publish(
        b,
        key,
        [{ key: stored.key, size: stored.size }],
        stored.md5,
        {
          contentType: replace ? contentTypeOf(c) : s.row.content_type,
          acl: f.acl,
          grants: f.grants,
          ownerId: f.ownerId,
          metadata: replace
            ? metadataOf(c)
            : (JSON.parse(s.row.metadata) as Record<string, string>),
          tags: tagDirective === 'REPLACE' ? f.tags : s.row.tags,
          lockMode: f.lockMode,
          lockUntil: f.lockUntil,
          legalHold: f.legalHold,
          sse: f.key ? sseRecord(f.key) : null,
        },
        0,
      );
    } catch (err) {
      await this.e.data.blobs.delete(stored.key);
      throw err;
    }
    send(
      c,
      200,
      xml('CopyObjectResult', {
        LastModified: isoDate(result.row?.last_modified ?? ''),
        ETag: quoted(stored.md5),
      }),
      {
        ...(result.versionId !== 'null' ? { 'x-amz-version-id': result.versionId } : {}),
        ...(s.bucket.versioning !== null
          ? { 'x-amz-copy-source-version-id': s.row.version_id }
          : {}),
        ...sseHeaders(result.row?.sse ?? null),
      },
    );
  }

  async getAcl(c: S3Call, b: BucketRow): Promise<void> {
    const o = await this.version(c, b, 's3:GetObjectAcl');
    const bucketOwner = await this.e.accounts.canonicalId(b.account_id);
    const owner = o.owner_id !== null ? await this.e.accounts.canonicalId(o.owner_id) : bucketOwner;
    send(c, 200, aclDocument(owner, grantsOf(o, owner, bucketOwner)), {
      ...(b.versioning !== null ? { 'x-amz-version-id': o.version_id } : {}),
    });
  }

  /** PutObjectAcl: a canned ACL, grant headers or a document, on a version or the latest. */
  async putAcl(c: S3Call, b: BucketRow): Promise<void> {
    const key = c.key as string;
    const versionId = versionIdOf(c);
    const o = versionId
      ? await findVersion(this.e.db, b.id, key, versionId)
      : await findObject(this.e.db, b.id, key);
    if (!o || o.delete_marker === 1) {
      if (versionId) throw s3errors.noSuchVersion(key, versionId);
      throw s3errors.noSuchKey(key);
    }
    await authorize(
      c,
      {
        action: versionId ? 's3:PutObjectVersionAcl' : 's3:PutObjectAcl',
        bucket: b,
        key,
        object: o,
        acl: { on: 'object', permission: 'WRITE_ACP' },
        write: true,
      },
      this.e.accounts,
    );
    const bucketOwner = await this.e.accounts.canonicalId(b.account_id);
    const owner = o.owner_id !== null ? await this.e.accounts.canonicalId(o.owner_id) : bucketOwner;
    const grants = await aclOfRequest(c, owner, bucketOwner, this.e.accounts);
    await this.e.db.db
      .updateTable('obj_objects')
      .set(storedAcl(grants, owner))
      .where('id', '=', o.id)
      .execute();
    send(c, 200, undefined, b.versioning !== null ? { 'x-amz-version-id': o.version_id } : {});
  }

  /** GetObjectAttributes: the ETag, size, storage class and parts a header asks for. */
  async attributes(c: S3Call, b: BucketRow): Promise<void> {
    const wanted = (header(c.req, 'x-amz-object-attributes') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const known = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'];
    if (wanted.length === 0 || wanted.some((w) => !known.includes(w)))
      throw s3errors.invalidArgument('Invalid attribute name specified.');
    const o = await this.version(c, b, 's3:GetObjectAttributes');
    keyForRead(o.sse, customerKey(c.req));
    const out: Record<string, unknown> = {};
    if (wanted.includes('ETag')) out.ETag = o.etag;
    if (wanted.includes('StorageClass')) out.StorageClass = 'STANDARD';
    if (wanted.includes('ObjectSize')) out.ObjectSize = Number(o.size);
    if (wanted.includes('ObjectParts') && /-\d+$/.test(o.etag)) {
      const parts = partsOf(o);
      const marker = Number(header(c.req, 'x-amz-part-number-marker') ?? '0') || 0;
      const max = Math.min(Number(header(c.req, 'x-amz-max-parts') ?? '1000') || 1000, 1000);
      const page = parts.slice(marker, marker + max);
      out.ObjectParts = {
        PartsCount: parts.length,
        PartNumberMarker: marker,
        ...(marker + max < parts.length ? { NextPartNumberMarker: marker + max } : {}),
        MaxParts: max,
        IsTruncated: marker + max < parts.length,
        Part: page.map((p, i) => ({ PartNumber: marker + i + 1, Size: p.end - p.start + 1 })),
      };
    }
    send(c, 200, xml('GetObjectAttributesResponse', out), {
      'last-modified': httpDate(o.last_modified),
      ...(b.versioning !== null ? { 'x-amz-version-id': o.version_id } : {}),
    });
  }
}

/** An error answered with headers (a delete marker's). */
function withHeaders(e: S3Error, headers: Record<string, string>): S3Error {
  return new S3Error(e.status, e.code, e.message, e.extra, { ...e.headers, ...headers });
}

/** The conditions of a conditional delete (DeleteObject's headers, a DeleteObjects entry). */
interface DeleteCondition {
  etag?: string;
  /** Whole seconds since the epoch (S3 compares times to the second). */
  mtime?: number;
  size?: number;
}

/** Parses a conditional delete's values; undefined when none is given. Bad values: 400. */
function deleteConditionOf(v: {
  etag: string | undefined;
  mtime: string | undefined;
  size: string | undefined;
}): DeleteCondition | undefined {
  if (v.etag === undefined && v.mtime === undefined && v.size === undefined) return undefined;
  const cond: DeleteCondition = {};
  if (v.etag !== undefined) cond.etag = v.etag;
  if (v.mtime !== undefined) {
    const ms = Date.parse(v.mtime);
    if (Number.isNaN(ms)) throw s3errors.invalidArgument('Invalid last modified time');
    cond.mtime = Math.floor(ms / 1000);
  }
  if (v.size !== undefined) {
    if (!/^\d+$/.test(v.size.trim())) throw s3errors.invalidArgument('Invalid size');
    cond.size = Number(v.size);
  }
  return cond;
}

/** Throws 412 PreconditionFailed when the delete's target does not meet its conditions. */
function checkDeleteCondition(cond: DeleteCondition, row: ObjectRow): void {
  if (cond.etag !== undefined && !etagMatches(cond.etag, row.etag))
    throw s3errors.preconditionFailed();
  if (cond.mtime !== undefined && Math.floor(msOf(row.last_modified) / 1000) !== cond.mtime)
    throw s3errors.preconditionFailed();
  if (cond.size !== undefined && Number(row.size) !== cond.size)
    throw s3errors.preconditionFailed();
}

/** The byte range of part `partText` of a version (a single-part object has one), and the count. */
function partOf(o: ObjectRow, partText: string) {
  const n = Number(partText);
  if (!/^\d+$/.test(partText) || n < 1 || n > 10_000)
    throw s3errors.invalidArgument('Part number must be an integer between 1 and 10000, inclusive');
  const parts = /-\d+$/.test(o.etag) ? partsOf(o) : [{ start: 0, end: Number(o.size) - 1 }];
  const range = parts[n - 1];
  if (!range)
    // RGW's answer (the provider's object storage; AWS answers 416 InvalidPartNumber).
    throw new S3Error(400, 'InvalidPart', 'One or more of the specified parts could not be found.');
  return { range, count: parts.length };
}
