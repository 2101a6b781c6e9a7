import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { BucketRow, ObjectRow } from '../objects.repository.js';
import type { KeyPermission } from '../objects.table.js';
import { type Caller, header } from './s3.auth.js';
import { AwsChunkedDecoder } from './s3.chunked.js';
import { s3errors } from './s3.errors.js';

/** One data-plane request, parsed: path-style `<cluster>/<bucket>/<key>`. */
export interface S3Call {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  method: string;
  cluster: string;
  bucket: string | undefined;
  key: string | undefined;
  query: Map<string, string>;
  caller: Caller;
}

export function send(
  c: S3Call,
  status: number,
  body?: string,
  headers: Record<string, string | number> = {},
): void {
  const h: Record<string, string | number> = { 'x-amz-request-id': c.requestId, ...headers };
  if (body !== undefined) {
    h['content-type'] = 'application/xml';
    h['content-length'] = Buffer.byteLength(body);
  } else if (h['content-length'] === undefined && status !== 304) {
    h['content-length'] = 0;
  }
  c.res.writeHead(status, h);
  c.res.end(c.method === 'HEAD' ? undefined : body);
}

/** The request body, with aws-chunked framing removed and digests the caller promised. */
export function body(c: S3Call): { stream: Readable; sha256?: string; md5Base64?: string } {
  const p = c.caller.payload;
  const md5 = header(c.req, 'content-md5');
  const stream = p.startsWith('STREAMING-')
    ? c.req.pipe(new AwsChunkedDecoder(c.caller.chunks))
    : (c.req as Readable);
  if (p.startsWith('STREAMING-')) c.req.on('error', (e) => stream.destroy(e));
  return {
    stream,
    ...(/^[0-9a-f]{64}$/.test(p) ? { sha256: p } : {}),
    ...(md5 !== undefined ? { md5Base64: md5 } : {}),
  };
}

/** Reads a small XML request body (at most 1 MiB). */
export async function smallBody(c: S3Call): Promise<string> {
  const { stream, sha256 } = body(c);
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    n += (chunk as Buffer).length;
    if (n > 1024 * 1024) throw s3errors.malformedXml();
    parts.push(chunk as Buffer);
  }
  const all = Buffer.concat(parts);
  if (sha256 !== undefined && createHash('sha256').update(all).digest('hex') !== sha256)
    throw s3errors.sha256Mismatch();
  return all.toString('utf8');
}

/** The permission a caller's key gives on a bucket of its own account, or null. */
export function ownerPermission(c: Caller, b: BucketRow): KeyPermission | null {
  if (c.accountId === null || c.accountId !== b.account_id) return null;
  if (!c.limited) return 'read_write';
  return c.access.get(`${b.cluster}/${b.label}`) ?? null;
}

/** Listing a bucket: the owner's key with any permission, or the bucket ACL. */
export function canList(c: Caller, b: BucketRow): boolean {
  if (ownerPermission(c, b)) return true;
  if (b.acl === 'public-read' || b.acl === 'public-read-write') return true;
  return b.acl === 'authenticated-read' && c.accountId !== null;
}

/** Writing into a bucket: the owner's read_write key, or a public-read-write bucket. */
export function canWrite(c: Caller, b: BucketRow): boolean {
  return ownerPermission(c, b) === 'read_write' || b.acl === 'public-read-write';
}

/** Reading an object: the owner's key, or the object's ACL. */
export function canRead(c: Caller, b: BucketRow, o: ObjectRow | undefined): boolean {
  if (ownerPermission(c, b)) return true;
  if (!o) return false;
  if (o.acl === 'public-read' || o.acl === 'public-read-write') return true;
  return o.acl === 'authenticated-read' && c.accountId !== null;
}

/** Changing ACLs, CORS, deleting the bucket: the owner's read_write key only. */
export function canAdminister(c: Caller, b: BucketRow): boolean {
  return ownerPermission(c, b) === 'read_write';
}

/** A canned ACL from `x-amz-acl`, or undefined; an unknown value is refused. */
export function cannedAcl(c: S3Call): BucketRow['acl'] | undefined {
  const v = header(c.req, 'x-amz-acl');
  if (v === undefined) return undefined;
  if (['private', 'public-read', 'public-read-write', 'authenticated-read'].includes(v))
    return v as BucketRow['acl'];
  throw s3errors.invalidArgument(`Unsupported canned ACL ${v}`);
}

/** ETag header form. */
export const quoted = (etag: string) => `"${etag}"`;

/** HTTP date of a stored `YYYY-MM-DDTHH:MM:SS` UTC time. */
export const httpDate = (t: string) => new Date(`${t}Z`).toUTCString();
/** ISO form S3 XML uses. */
export const isoDate = (t: string) => `${t}.000Z`;
