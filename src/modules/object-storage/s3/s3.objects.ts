import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectData } from '../objects.data.js';
import { MAX_PUT_BYTES } from '../objects.data.js';
import { type BucketRow, findObject, type ObjectRow } from '../objects.repository.js';
import type { Database } from '../../../db/database.js';
import { header } from './s3.auth.js';
import {
  body,
  canAdminister,
  canRead,
  canWrite,
  cannedAcl,
  httpDate,
  isoDate,
  quoted,
  type S3Call,
  send,
  smallBody,
} from './s3.context.js';
import { s3errors } from './s3.errors.js';
import { aclDocument, parseXml, xml } from './s3.xml.js';
import { aclFromXml } from './s3.acl.js';

/** Headers stored with an object and sent back on GET and HEAD. */
const KEPT_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
];

export function metadataOf(c: S3Call): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.req.headers)) {
    if (typeof v !== 'string') continue;
    if (k.startsWith('x-amz-meta-') || KEPT_HEADERS.includes(k)) out[k] = v;
  }
  return out;
}

export function contentTypeOf(c: S3Call): string {
  return header(c.req, 'content-type') ?? 'binary/octet-stream';
}

/** Parses `Range: bytes=…` against a size; null when absent, 416 when unsatisfiable. */
export function parseRange(
  h: string | undefined,
  size: number,
): { start: number; end: number } | null {
  if (h === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(h.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) throw s3errors.invalidRange();
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size) throw s3errors.invalidRange();
  return { start, end };
}

export class S3Objects {
  constructor(
    private readonly db: Database,
    private readonly data: ObjectData,
  ) {}

  async put(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const key = c.key as string;
    const acl = cannedAcl(c) ?? 'private';
    const input = body(c);
    const stored = await this.data.store(input.stream, input, MAX_PUT_BYTES);
    try {
      await this.data.publish(
        b,
        key,
        [{ key: stored.key, size: stored.size }],
        stored.md5,
        { contentType: contentTypeOf(c), acl, metadata: metadataOf(c) },
        stored.size,
      );
    } catch (err) {
      await this.data.blobs.delete(stored.key);
      throw err;
    }
    send(c, 200, undefined, { etag: quoted(stored.md5) });
  }

  private headers(o: ObjectRow): Record<string, string | number> {
    const h: Record<string, string | number> = {
      'content-type': o.content_type,
      etag: quoted(o.etag),
      'last-modified': httpDate(o.last_modified),
      'accept-ranges': 'bytes',
    };
    for (const [k, v] of Object.entries(JSON.parse(o.metadata) as Record<string, string>)) h[k] = v;
    return h;
  }

  /** GetObject and HeadObject, with ranges and the common conditional headers. */
  async get(c: S3Call, b: BucketRow): Promise<void> {
    const key = c.key as string;
    const o = await findObject(this.db, b.id, key);
    if (!canRead(c.caller, b, o)) throw s3errors.accessDenied();
    if (!o) throw s3errors.noSuchKey(key);
    const h = this.headers(o);
    const ifNone = header(c.req, 'if-none-match');
    const ifMatch = header(c.req, 'if-match');
    if (ifMatch !== undefined && !etagMatches(ifMatch, o.etag)) throw s3errors.preconditionFailed();
    if (ifNone !== undefined && etagMatches(ifNone, o.etag)) {
      c.res.writeHead(304, { etag: h.etag as string, 'x-amz-request-id': c.requestId });
      c.res.end();
      return;
    }
    for (const [q, name] of [
      ['response-content-type', 'content-type'],
      ['response-content-disposition', 'content-disposition'],
      ['response-cache-control', 'cache-control'],
    ] as const) {
      const v = c.query.get(q);
      if (v !== undefined) h[name] = v;
    }
    const size = Number(o.size);
    const range = size === 0 ? null : parseRange(header(c.req, 'range'), size);
    const length = range ? range.end - range.start + 1 : size;
    h['content-length'] = length;
    h['x-amz-request-id'] = c.requestId;
    if (range) h['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
    if (c.method === 'HEAD' || length === 0) {
      c.res.writeHead(range ? 206 : 200, h);
      c.res.end();
      return;
    }
    const stream = await this.data.read(o, range ?? undefined);
    c.res.writeHead(range ? 206 : 200, h);
    let sent = 0;
    const meter = new PassThrough();
    meter.on('data', (chunk: Buffer) => {
      sent += chunk.length;
    });
    try {
      await pipeline(stream, meter, c.res);
    } finally {
      this.data.sent(b, sent);
    }
  }

  async remove(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    await this.data.remove(b, c.key as string);
    send(c, 204);
  }

  /** DeleteObjects: `<Delete><Object><Key>…` → `<DeleteResult>`. */
  async removeMany(c: S3Call, b: BucketRow): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const doc = parseXml(await smallBody(c)).Delete as
      | { Object?: { Key?: string }[]; Quiet?: string }
      | undefined;
    if (!doc || !Array.isArray(doc.Object)) throw s3errors.malformedXml();
    if (doc.Object.length > 1000) throw s3errors.malformedXml();
    const deleted: { Key: string }[] = [];
    for (const o of doc.Object) {
      if (typeof o.Key !== 'string') throw s3errors.malformedXml();
      await this.data.remove(b, o.Key);
      deleted.push({ Key: o.Key });
    }
    const quiet = doc.Quiet === 'true';
    send(c, 200, xml('DeleteResult', quiet ? {} : { Deleted: deleted }));
  }

  /** CopyObject: `x-amz-copy-source: /bucket/key` in the same cluster; bytes are copied. */
  async copy(c: S3Call, b: BucketRow, source: string): Promise<void> {
    if (!canWrite(c.caller, b)) throw s3errors.accessDenied();
    const src = decodeURIComponent(source.split('?')[0] ?? '').replace(/^\//, '');
    const slash = src.indexOf('/');
    if (slash <= 0) throw s3errors.invalidArgument('Invalid copy source');
    const srcBucket = await this.data.findBucket(c.cluster, src.slice(0, slash));
    if (!srcBucket) throw s3errors.noSuchBucket(src.slice(0, slash));
    const srcKey = src.slice(slash + 1);
    const o = await findObject(this.db, srcBucket.id, srcKey);
    if (!canRead(c.caller, srcBucket, o)) throw s3errors.accessDenied();
    if (!o) throw s3errors.noSuchKey(srcKey);
    const replace = header(c.req, 'x-amz-metadata-directive') === 'REPLACE';
    const stored = await this.data.store(await this.data.read(o), {}, Number.POSITIVE_INFINITY);
    const etag = stored.md5;
    try {
      await this.data.publish(
        b,
        c.key as string,
        [{ key: stored.key, size: stored.size }],
        etag,
        {
          contentType: replace ? contentTypeOf(c) : o.content_type,
          acl: cannedAcl(c) ?? 'private',
          metadata: replace ? metadataOf(c) : (JSON.parse(o.metadata) as Record<string, string>),
        },
        0,
      );
    } catch (err) {
      await this.data.blobs.delete(stored.key);
      throw err;
    }
    send(
      c,
      200,
      xml('CopyObjectResult', { LastModified: isoDate(this.data.now()), ETag: quoted(etag) }),
    );
  }

  async getAcl(c: S3Call, b: BucketRow): Promise<void> {
    const key = c.key as string;
    const o = await findObject(this.db, b.id, key);
    if (!canRead(c.caller, b, o)) throw s3errors.accessDenied();
    if (!o) throw s3errors.noSuchKey(key);
    send(c, 200, aclDocument(o.acl, await ownerOf(this.db, b)));
  }

  async putAcl(c: S3Call, b: BucketRow): Promise<void> {
    if (!canAdminister(c.caller, b)) throw s3errors.accessDenied();
    const key = c.key as string;
    const o = await findObject(this.db, b.id, key);
    if (!o) throw s3errors.noSuchKey(key);
    const acl = cannedAcl(c) ?? aclFromXml(await smallBody(c));
    await this.db.db.updateTable('obj_objects').set({ acl }).where('id', '=', o.id).execute();
    send(c, 200);
  }
}

/** The canonical owner of a bucket's objects: its account's euuid. */
export async function ownerOf(db: Database, b: BucketRow): Promise<string> {
  const row = await db.db
    .selectFrom('accounts')
    .select('euuid')
    .where('id', '=', b.account_id)
    .executeTakeFirst();
  return row?.euuid ?? String(b.account_id);
}

function etagMatches(h: string, etag: string): boolean {
  return h
    .split(',')
    .map((s) => s.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .some((s) => s === '*' || s === etag);
}
