import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Database } from '../../../db/database.js';
import type { JobQueue } from '../../../jobs/queue.js';
import type { Clock } from '../../../lib/clock.js';
import type { Sealer } from '../../../platform/sealer.js';
import type { BucketsService } from '../buckets.service.js';
import { parseS3Host, resolveCluster } from '../objects.clusters.js';
import type { ObjectData } from '../objects.data.js';
import { type BucketRow, findBucket } from '../objects.repository.js';
import { ANONYMOUS, header, S3Authenticator } from './s3.auth.js';
import { S3BucketConfig } from './s3.bucket-config.js';
import { S3Buckets } from './s3.buckets.js';
import { S3Accounts, type S3Call } from './s3.context.js';
import { corsResponseHeaders, preflight } from './s3.cors.js';
import { S3Error, s3errors } from './s3.errors.js';
import { checkExpectedOwner, refuseUnsupported } from './s3.headers.js';
import { S3ObjectMeta } from './s3.object-meta.js';
import { S3Multipart } from './s3.multipart.js';
import { S3Objects } from './s3.objects.js';
import { s3Operation } from './s3.operations.js';
import { S3Post } from './s3.post.js';
import { serveWebsite } from './s3.website.js';
import { parseQuery } from './sigv4.js';
import { errorDocument } from './s3.xml.js';

/** Where unexpected failures are logged. */
export interface S3Log {
  error(obj: object, msg: string): void;
}

export interface S3Deps {
  db: Database;
  clock: Clock;
  sealer: Sealer;
  queue: JobQueue;
  data: ObjectData;
  buckets: BucketsService;
  clusters: readonly string[];
  /** Host names under which `<bucket>.<name>` is a virtual-host-style request. */
  hostSuffixes: readonly string[];
  /** The cluster of requests that name none (S3's own listener, STRATUS_S3_PORT). */
  defaultCluster: string;
}

/**
 * How a request reached the data plane: under a path prefix of the API listener
 * (`/_stratus/s3/<cluster>/…`, the cluster in the path), or at the root of S3's own listener
 * (`/<bucket>/<key>`, the cluster from the Host, the signature's region or the default).
 */
export interface S3Mount {
  prefix: string;
  clusterInPath: boolean;
}

/** One operation's handler: the bucket is loaded (404 first) for bucket and object operations. */
type Handler = (c: S3Call, b: BucketRow) => Promise<void>;

/**
 * The S3 data plane on raw Node streams. Every request is named by the operation table
 * (s3.operations.ts) and answered by that operation's handler, or `501 NotImplemented` naming
 * it; it never runs as another operation. Authenticates (SigV4 header/query, V2 header/query),
 * enforces key limits, bucket policies and ACLs (s3.access.ts). Errors are S3 XML documents.
 */
export class S3Service {
  private readonly auth: S3Authenticator;
  private readonly accounts: S3Accounts;
  private readonly buckets: S3Buckets;
  private readonly handlers: Readonly<Record<string, Handler>>;

  constructor(private readonly d: S3Deps) {
    this.auth = new S3Authenticator(d.db, d.sealer);
    this.accounts = new S3Accounts(d.db);
    const env = { db: d.db, data: d.data, accounts: this.accounts, queue: d.queue };
    this.buckets = new S3Buckets({ ...env, buckets: d.buckets });
    const config = new S3BucketConfig(env);
    const objects = new S3Objects(env);
    const meta = new S3ObjectMeta(env);
    const multipart = new S3Multipart(env);
    const post = new S3Post({ ...env, auth: this.auth });
    const b = this.buckets;
    this.handlers = {
      ListObjects: (c, bk) => b.list(c, bk),
      ListObjectsV2: (c, bk) => b.list(c, bk),
      ListObjectVersions: (c, bk) => b.listVersions(c, bk),
      HeadBucket: (c, bk) => b.head(c, bk),
      DeleteBucket: (c, bk) => b.remove(c, bk),
      GetBucketLocation: (c, bk) => b.location(c, bk),
      GetBucketAcl: (c, bk) => b.getAcl(c, bk),
      PutBucketAcl: (c, bk) => b.putAcl(c, bk),
      GetBucketPolicyStatus: (c, bk) => b.policyStatus(c, bk),
      GetBucketVersioning: (c, bk) => config.getVersioning(c, bk),
      PutBucketVersioning: (c, bk) => config.putVersioning(c, bk),
      GetBucketPolicy: (c, bk) => config.getPolicy(c, bk),
      PutBucketPolicy: (c, bk) => config.putPolicy(c, bk),
      DeleteBucketPolicy: (c, bk) => config.deletePolicy(c, bk),
      GetBucketCors: (c, bk) => config.getCors(c, bk),
      PutBucketCors: (c, bk) => config.putCors(c, bk),
      DeleteBucketCors: (c, bk) => config.deleteCors(c, bk),
      GetBucketLifecycleConfiguration: (c, bk) => config.getLifecycle(c, bk),
      PutBucketLifecycleConfiguration: (c, bk) => config.putLifecycle(c, bk),
      DeleteBucketLifecycle: (c, bk) => config.deleteLifecycle(c, bk),
      GetBucketWebsite: (c, bk) => config.getWebsite(c, bk),
      PutBucketWebsite: (c, bk) => config.putWebsite(c, bk),
      DeleteBucketWebsite: (c, bk) => config.deleteWebsite(c, bk),
      GetBucketTagging: (c, bk) => config.getTags(c, bk),
      PutBucketTagging: (c, bk) => config.putTags(c, bk),
      DeleteBucketTagging: (c, bk) => config.deleteTags(c, bk),
      GetObjectLockConfiguration: (c, bk) => config.getObjectLock(c, bk),
      PutObjectLockConfiguration: (c, bk) => config.putObjectLock(c, bk),
      ListMultipartUploads: (c, bk) => multipart.listUploads(c, bk),
      DeleteObjects: (c, bk) => objects.removeMany(c, bk),
      PostObject: (c, bk) => post.upload(c, bk),
      GetObject: (c, bk) => objects.get(c, bk),
      HeadObject: (c, bk) => objects.get(c, bk),
      PutObject: (c, bk) => objects.put(c, bk),
      CopyObject: (c, bk) => objects.copy(c, bk),
      DeleteObject: (c, bk) => objects.remove(c, bk),
      GetObjectAcl: (c, bk) => objects.getAcl(c, bk),
      PutObjectAcl: (c, bk) => objects.putAcl(c, bk),
      GetObjectAttributes: (c, bk) => objects.attributes(c, bk),
      GetObjectTagging: (c, bk) => meta.getTags(c, bk),
      PutObjectTagging: (c, bk) => meta.putTags(c, bk),
      DeleteObjectTagging: (c, bk) => meta.deleteTags(c, bk),
      GetObjectRetention: (c, bk) => meta.getRetention(c, bk),
      PutObjectRetention: (c, bk) => meta.putRetention(c, bk),
      GetObjectLegalHold: (c, bk) => meta.getLegalHold(c, bk),
      PutObjectLegalHold: (c, bk) => meta.putLegalHold(c, bk),
      CreateMultipartUpload: (c, bk) => multipart.create(c, bk),
      UploadPart: (c, bk) => multipart.part(c, bk),
      UploadPartCopy: (c, bk) => multipart.partCopy(c, bk),
      CompleteMultipartUpload: (c, bk) => multipart.complete(c, bk),
      AbortMultipartUpload: (c, bk) => multipart.abort(c, bk),
      ListParts: (c, bk) => multipart.listParts(c, bk),
    };
  }

  /** The operations this data plane serves (every other one is answered 501). */
  served(): string[] {
    return [
      'ListBuckets',
      'CreateBucket',
      'PreflightBucket',
      'PreflightObject',
      ...Object.keys(this.handlers),
    ];
  }

  /** A static-website request (s3.website.ts). */
  website(req: IncomingMessage, res: ServerResponse, prefix: string): Promise<void> {
    return serveWebsite(
      { ...this.d, accounts: this.accounts, nowMs: () => this.d.clock.nowMs() },
      req,
      res,
      prefix,
    );
  }

  /** Where a request points: cluster, bucket, key (decoded) and the V2 resource. */
  private locate(req: IncomingMessage, rawPath: string, query: [string, string][], mount: S3Mount) {
    const rest = rawPath.slice(mount.prefix.length).replace(/^\//, '');
    const segs = rest.split('/');
    const host = parseS3Host(header(req, 'host'), this.d.hostSuffixes, this.d.clusters);
    let cluster: string | null;
    if (mount.clusterInPath) {
      cluster = decode(segs.shift() ?? '');
    } else {
      cluster = host.cluster ?? regionOf(req, query, this.d.clusters) ?? this.d.defaultCluster;
    }
    // Virtual-host style: the bucket is in the Host header, the path is the key.
    const virtual = host.bucket !== undefined;
    if (virtual) segs.unshift(encodeURIComponent(host.bucket as string));
    const bucket = segs[0] !== undefined && segs[0] !== '' ? decode(segs[0]) : undefined;
    const rawKey = segs.length > 1 ? segs.slice(1).join('/') : undefined;
    const key = rawKey !== undefined ? decode(rawKey) : undefined;
    return {
      cluster,
      bucket,
      key: key === '' ? undefined : key,
      badPath: cluster === null || bucket === null || key === null,
      v2Resource: `/${segs.join('/')}`,
    };
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    log: S3Log,
    /** Told the S3 operation's name before it runs (the API's logs and metrics). */
    onOperation: (op: string) => void = () => {},
    mount: S3Mount = { prefix: '', clusterInPath: true },
    /** The URL as the client sent it, when the listener rewrote it. */
    originalUrl?: string,
  ): Promise<void> {
    const url = originalUrl ?? req.url ?? '/';
    const at = url.indexOf('?');
    const rawPath = at < 0 ? url : url.slice(0, at);
    const rawQuery = at < 0 ? '' : url.slice(at + 1);
    const query = parseQuery(rawQuery);
    const method = (req.method ?? 'GET').toUpperCase();
    const where = this.locate(req, rawPath, query, mount);
    const queryMap = new Map(query);
    const spec = s3Operation({
      method,
      bucket: where.bucket ?? undefined,
      key: where.key ?? undefined,
      query: queryMap,
      headers: req.headers,
    });
    const op = spec ? (spec.servedAs ?? spec.name) : 'MethodNotAllowed';
    const c: S3Call = {
      req,
      res,
      requestId,
      method,
      cluster: where.cluster ?? '',
      bucket: where.bucket ?? undefined,
      key: where.key ?? undefined,
      query: queryMap,
      op,
      caller: ANONYMOUS,
      sourceIp: req.socket?.remoteAddress ?? '',
      secure: (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true,
      nowMs: this.d.clock.nowMs(),
      expectsContinue: (req as { s3ExpectsContinue?: boolean }).s3ExpectsContinue === true,
    };
    try {
      onOperation(`s3:${op}`);
      if (where.badPath) throw s3errors.invalidUri();
      if (c.key !== undefined) {
        if (Buffer.byteLength(c.key) > 1024)
          throw new S3Error(400, 'KeyTooLongError', 'Your key is too long');
        if (c.key.includes('\u0000'))
          throw s3errors.invalidArgument('Object key names may not contain NUL characters.');
      }
      if (!this.d.clusters.includes(c.cluster))
        throw new S3Error(404, 'NoSuchCluster', 'The specified cluster does not exist');
      if (!spec) throw s3errors.methodNotAllowed();
      if (op === 'PreflightBucket' || op === 'PreflightObject') {
        const b = c.bucket ? await findBucket(this.d.db, c.cluster, c.bucket) : undefined;
        preflight(c, b);
        return;
      }
      if (op !== 'PostObject') {
        c.caller = await this.auth.authenticate({
          req,
          method,
          path: decode(rawPath) ?? rawPath,
          rawPath,
          query,
          rawQuery,
          v2Resource: where.v2Resource,
          cluster: c.cluster,
          nowMs: c.nowMs,
        });
      }
      await this.dispatch(c);
    } catch (err) {
      this.fail(c, err, log);
    }
  }

  private async dispatch(c: S3Call): Promise<void> {
    if (c.op === 'ListBuckets') return this.buckets.listAll(c);
    if (c.op === 'CreateBucket') {
      refuseUnsupported(c);
      return this.buckets.create(c);
    }
    const handler = this.handlers[c.op];
    if (!handler) throw s3errors.notImplemented(c.op);
    const b = await findBucket(this.d.db, c.cluster, c.bucket as string);
    if (!b) throw s3errors.noSuchBucket(c.bucket as string);
    const owner = await this.accounts.canonicalId(b.account_id);
    checkExpectedOwner(c, owner);
    for (const [k, v] of Object.entries(corsResponseHeaders(c, b))) c.res.setHeader(k, v);
    if (['PutObject', 'CopyObject', 'CreateMultipartUpload', 'UploadPart'].includes(c.op))
      refuseUnsupported(c);
    return handler(c, b);
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
    const head = c.method === 'HEAD' || e.status === 304;
    const body = errorDocument(e.code, e.message, resource, c.requestId, e.extra);
    c.res.writeHead(e.status, {
      ...(head ? {} : { 'content-type': 'application/xml' }),
      'content-length': head ? 0 : Buffer.byteLength(body),
      'x-amz-request-id': c.requestId,
      ...e.headers,
    });
    c.res.end(head ? undefined : body);
    // An unread request body would stall the connection: drain it (unless the client waits for
    // a 100 Continue it will now never get: then it sends nothing).
    if (!c.expectsContinue) c.req.resume();
  }
}

/** The decoded path segment, or null when its percent-encoding (or UTF-8) is invalid. */
function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** The region a SigV4 request names, when it is one of the clusters (S3's own listener). */
function regionOf(
  req: IncomingMessage,
  query: [string, string][],
  clusters: readonly string[],
): string | undefined {
  const auth = req.headers.authorization ?? '';
  const m = /Credential=[^/]*\/\d{8}\/([^/]+)\//.exec(auth);
  const cred = m?.[1] ?? query.find(([k]) => k === 'X-Amz-Credential')?.[1]?.split('/')[2];
  return cred === undefined ? undefined : (resolveCluster(clusters, cred) ?? undefined);
}
