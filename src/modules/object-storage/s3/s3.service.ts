import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Database } from '../../../db/database.js';
import type { Clock } from '../../../lib/clock.js';
import type { BucketsService } from '../buckets.service.js';
import { bucketOfHost, S3_PREFIX } from '../objects.clusters.js';
import type { Sealer } from '../../../platform/sealer.js';
import type { ObjectData } from '../objects.data.js';
import { findBucket } from '../objects.repository.js';
import { ANONYMOUS, header, S3Authenticator } from './s3.auth.js';
import { S3Buckets } from './s3.buckets.js';
import type { S3Call } from './s3.context.js';
import { S3Error, s3errors } from './s3.errors.js';
import { S3Multipart } from './s3.multipart.js';
import { S3Objects } from './s3.objects.js';
import { type S3Operation, s3Operation } from './s3.operations.js';
import { parseQuery } from './sigv4.js';
import { serveWebsite } from './s3.website.js';
import { errorDocument } from './s3.xml.js';

/** Where unexpected failures are logged. */
export interface S3Log {
  error(obj: object, msg: string): void;
}

export interface S3Deps {
  db: Database;
  clock: Clock;
  sealer: Sealer;
  data: ObjectData;
  buckets: BucketsService;
  clusters: readonly string[];
  /** `<bucket>.<suffix>` Host headers are virtual-host-style requests (objects.clusters.ts). */
  hostSuffixes: readonly string[];
}

/**
 * The S3 data plane: path-style requests `<S3_PREFIX>/<cluster>/<bucket>/<key>` on raw Node
 * streams. Authenticates (SigV4 header/query, V2), enforces keys' bucket limits and ACLs, and
 * dispatches to the bucket, object and multipart operations. Errors are S3 XML documents.
 */
export class S3Service {
  private readonly auth: S3Authenticator;
  private readonly bucketOps: S3Buckets;
  private readonly objectOps: S3Objects;
  private readonly multipart: S3Multipart;

  constructor(private readonly d: S3Deps) {
    this.auth = new S3Authenticator(d.db, d.sealer);
    this.bucketOps = new S3Buckets(d.db, d.buckets);
    this.objectOps = new S3Objects(d.db, d.data);
    this.multipart = new S3Multipart(d.db, d.data);
  }

  /** A static-website request (s3.website.ts). */
  website(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return serveWebsite(this.d, req, res);
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    log: S3Log,
    /** Told the S3 operation's name before it runs (the API's logs and metrics). */
    onOperation: (op: string) => void = () => {},
  ): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    const query = parseQuery(q < 0 ? '' : url.slice(q + 1));
    const method = (req.method ?? 'GET').toUpperCase();
    const rest = rawPath.slice(S3_PREFIX.length).replace(/^\//, '');
    const segs = rest.split('/');
    const cluster = decode(segs[0] ?? '');
    // Virtual-host style: the bucket is in the Host header, the path is `<cluster>/<key>`.
    const hostBucket = bucketOfHost(header(req, 'host'), this.d.hostSuffixes);
    if (hostBucket !== undefined) segs.splice(1, 0, encodeURIComponent(hostBucket));
    const bucket = segs[1] !== undefined && segs[1] !== '' ? decode(segs[1]) : undefined;
    const key = segs.length > 2 ? decode(segs.slice(2).join('/')) : undefined;
    const badPath = [cluster, bucket, key].includes(null);
    const c: S3Call = {
      req,
      res,
      requestId,
      method,
      cluster: cluster ?? '',
      bucket: bucket ?? undefined,
      key: key === '' || key === null ? undefined : key,
      query: new Map(query),
      caller: ANONYMOUS,
    };
    const op = s3Operation(c);
    try {
      if (method !== 'OPTIONS') onOperation(`s3:${op}`);
      if (badPath) throw s3errors.invalidArgument('Invalid URI encoding');
      if (c.key !== undefined && Buffer.byteLength(c.key) > 1024)
        throw new S3Error(400, 'KeyTooLongError', 'Your key is too long');
      if (!this.d.clusters.includes(c.cluster))
        throw new S3Error(404, 'NoSuchCluster', 'The specified cluster does not exist');
      if (method === 'OPTIONS') {
        onOperation('s3:PreflightRequest');
        const b = c.bucket ? await findBucket(this.d.db, c.cluster, c.bucket) : undefined;
        this.bucketOps.preflight(c, b);
        return;
      }
      c.caller = await this.auth.authenticate({
        req,
        method,
        path: decode(rawPath) ?? rawPath,
        rawPath,
        query,
        v2Resource: `/${segs.slice(1).join('/')}`,
        nowMs: this.d.clock.nowMs(),
      });
      await this.dispatch(c, op);
    } catch (err) {
      this.fail(c, err, log);
    }
  }

  private async dispatch(c: S3Call, op: S3Operation): Promise<void> {
    if (op === 'NotImplemented' || op === 'UploadPartCopy') throw s3errors.notImplemented();
    if (op === 'MethodNotAllowed') throw s3errors.methodNotAllowed();
    if (op === 'ListBuckets') return this.bucketOps.listAll(c);
    if (op === 'CreateBucket') return this.bucketOps.create(c);
    const b = await findBucket(this.d.db, c.cluster, c.bucket as string);
    if (!b) throw s3errors.noSuchBucket(c.bucket as string);
    this.corsHeaders(c, b.cors_enabled === 1);
    switch (op) {
      case 'ListObjects':
      case 'ListObjectsV2':
        return this.bucketOps.list(c, b);
      case 'HeadBucket':
        return this.bucketOps.head(c, b);
      case 'DeleteBucket':
        return this.bucketOps.remove(c, b);
      case 'GetBucketAcl':
        return this.bucketOps.getAcl(c, b);
      case 'PutBucketAcl':
        return this.bucketOps.putAcl(c, b);
      case 'GetBucketCors':
        return this.bucketOps.getCors(c, b);
      case 'PutBucketCors':
        return this.bucketOps.setCors(c, b, true);
      case 'DeleteBucketCors':
        return this.bucketOps.setCors(c, b, false);
      case 'GetBucketLocation':
        return this.bucketOps.location(c, b);
      case 'GetBucketVersioning':
        return this.bucketOps.versioning(c, b);
      case 'ListMultipartUploads':
        return this.multipart.listUploads(c, b);
      case 'DeleteObjects':
        return this.objectOps.removeMany(c, b);
      case 'GetObject':
      case 'HeadObject':
        return this.objectOps.get(c, b);
      case 'PutObject':
      // A pre-signed POST to an object (the control plane's object-url) writes it.
      case 'PostObject':
        return this.objectOps.put(c, b);
      case 'CopyObject':
        return this.objectOps.copy(c, b, header(c.req, 'x-amz-copy-source') as string);
      case 'DeleteObject':
        return this.objectOps.remove(c, b);
      case 'GetObjectAcl':
        return this.objectOps.getAcl(c, b);
      case 'PutObjectAcl':
        return this.objectOps.putAcl(c, b);
      case 'CreateMultipartUpload':
        return this.multipart.create(c, b);
      case 'UploadPart':
        return this.multipart.part(c, b);
      case 'CompleteMultipartUpload':
        return this.multipart.complete(c, b);
      case 'AbortMultipartUpload':
        return this.multipart.abort(c, b);
      case 'ListParts':
        return this.multipart.listParts(c, b);
    }
  }

  /** Answers to browsers of a CORS-enabled bucket carry the CORS headers. */
  private corsHeaders(c: S3Call, enabled: boolean): void {
    const origin = header(c.req, 'origin');
    if (!enabled || origin === undefined) return;
    c.res.setHeader('access-control-allow-origin', origin);
    c.res.setHeader('access-control-expose-headers', 'ETag, x-amz-request-id');
    c.res.setHeader('vary', 'Origin');
  }

  private fail(c: S3Call, err: unknown, log: S3Log): void {
    const e =
      err instanceof S3Error
        ? err
        : new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
    if (!(err instanceof S3Error)) log.error({ err, reqId: c.requestId }, 's3 request failed');
    if (c.res.headersSent) {
      c.res.destroy();
      return;
    }
    const resource = c.key !== undefined ? `/${c.bucket}/${c.key}` : `/${c.bucket ?? ''}`;
    const body = errorDocument(e.code, e.message, resource, c.requestId, e.extra);
    c.res.writeHead(e.status, {
      'content-type': 'application/xml',
      'content-length': c.method === 'HEAD' ? 0 : Buffer.byteLength(body),
      'x-amz-request-id': c.requestId,
    });
    c.res.end(c.method === 'HEAD' ? undefined : body);
    // An unread request body would stall the connection: drain it.
    c.req.resume();
  }
}

/** The decoded path segment, or null when its percent-encoding is invalid. */
function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}
