import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../../../db/database.js';
import { parseS3Host } from '../objects.clusters.js';
import type { ObjectData } from '../objects.data.js';
import { type BucketRow, findBucket, findObject, type ObjectRow } from '../objects.repository.js';
import { authorize } from './s3.access.js';
import { ANONYMOUS } from './s3.auth.js';
import type { S3Accounts, S3Call } from './s3.context.js';
import { httpDate, quoted } from './s3.context.js';
import { S3Error } from './s3.errors.js';
import { redirectLocation, routingRule, type WebsiteConfig } from './s3.website-config.js';

/** Where static websites are served: a cluster's `static_site_domain` is `<host>/<this>/<cluster>`. */
export const S3_WEBSITE_PREFIX = '/_stratus/s3-website';

function page(res: ServerResponse, status: number, code: string, message: string, head: boolean) {
  const body = `<html><head><title>${status} ${code}</title></head><body><h1>${status} ${code}</h1><ul><li>Code: ${code}</li><li>Message: ${message}</li></ul></body></html>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': head ? 0 : Buffer.byteLength(body),
  });
  res.end(head ? undefined : body);
}

function redirect(res: ServerResponse, status: number, location: string) {
  res.writeHead(status, { location, 'content-length': 0 });
  res.end();
}

export interface WebsiteDeps {
  db: Database;
  data: ObjectData;
  accounts: S3Accounts;
  clusters: readonly string[];
  hostSuffixes: readonly string[];
  nowMs: () => number;
}

/**
 * Static websites, as S3 serves a bucket's website endpoint: at
 * `<static_site_domain>/<bucket>/<path>` or `<bucket>.<static_site_domain host>`, anonymous GET
 * and HEAD, by the bucket's website configuration (PutBucketWebsite; none is 404
 * NoSuchWebsiteConfiguration). Folders answer their index document; redirects (all requests,
 * routing rules, an object's `x-amz-website-redirect-location`) answer 301 or their code. An
 * object is served only when anyone may read it (its ACL or the bucket policy), the same check
 * as an anonymous S3 GET; otherwise 403, as a missing one is 404, each with the error document
 * when the configuration names one. Errors are HTML pages.
 */
export async function serveWebsite(
  d: WebsiteDeps,
  req: IncomingMessage,
  res: ServerResponse,
  prefix = S3_WEBSITE_PREFIX,
): Promise<void> {
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) {
    page(
      res,
      405,
      'MethodNotAllowed',
      'The specified method is not allowed against this resource.',
      head,
    );
    return;
  }
  const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
  const segs = rawPath.slice(prefix.length).replace(/^\//, '').split('/');
  const host = parseS3Host(req.headers.host, d.hostSuffixes, d.clusters);
  const virtual = host.bucket !== undefined;
  if (virtual) segs.splice(1, 0, encodeURIComponent(host.bucket as string));
  let cluster: string;
  let label: string;
  let key: string;
  try {
    [cluster, label, key] = [
      decodeURIComponent(segs[0] ?? ''),
      decodeURIComponent(segs[1] ?? ''),
      decodeURIComponent(segs.slice(2).join('/')),
    ];
  } catch {
    page(res, 400, 'InvalidURI', "Couldn't parse the specified URI.", head);
    return;
  }
  const b =
    d.clusters.includes(cluster) && label ? await findBucket(d.db, cluster, label) : undefined;
  if (!b) {
    page(res, 404, 'NoSuchBucket', 'The specified bucket does not exist.', head);
    return;
  }
  if (!b.website) {
    page(
      res,
      404,
      'NoSuchWebsiteConfiguration',
      'The specified bucket does not have a website configuration',
      head,
    );
    return;
  }
  const w = JSON.parse(b.website) as WebsiteConfig;
  const proto = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const siteBase = virtual
    ? `${proto}://${req.headers.host}`
    : `${proto}://${req.headers.host}${prefix}/${segs[0]}/${segs[1]}`;
  if (w.redirectAll) {
    redirect(res, 301, `${w.redirectAll.protocol ?? proto}://${w.redirectAll.hostName}/${key}`);
    return;
  }
  const before = routingRule(w, key);
  if (before) {
    const r = redirectLocation(before, key, siteBase, proto);
    redirect(res, r.status, r.location);
    return;
  }
  const index = w.indexSuffix ?? 'index.html';
  const wanted = key === '' || key.endsWith('/') ? `${key}${index}` : key;
  const readable = async (o: ObjectRow | undefined) => {
    if (!o || o.sse) return false;
    try {
      await authorize(
        anonymousCall(req, res, cluster, label, d.nowMs()),
        {
          action: 's3:GetObject',
          bucket: b,
          key: o.name,
          object: o,
          acl: { on: 'object', permission: 'READ' },
          write: false,
        },
        d.accounts,
      );
      return true;
    } catch (err) {
      if (err instanceof S3Error) return false;
      throw err;
    }
  };
  const o = await findObject(d.db, b.id, wanted);
  if (!o && wanted === key) {
    // A folder asked without its slash: S3 redirects to it when its index document exists.
    const folder = await findObject(d.db, b.id, `${key}/${index}`);
    if (folder) {
      redirect(res, 302, `${siteBase}/${key}/`);
      return;
    }
  }
  let status = 200;
  if (!o) status = 404;
  else if (!(await readable(o))) status = 403;
  if (status === 200 && o) {
    const to = (JSON.parse(o.metadata) as Record<string, string>)[
      'x-amz-website-redirect-location'
    ];
    if (to) {
      redirect(res, 301, to);
      return;
    }
    await sendObject(d, b, o, res, 200, head);
    return;
  }
  const onError = routingRule(w, key, status);
  if (onError) {
    const r = redirectLocation(onError, key, siteBase, proto);
    redirect(res, r.status, r.location);
    return;
  }
  if (w.errorKey) {
    const doc = await findObject(d.db, b.id, w.errorKey);
    if (doc && (await readable(doc))) {
      await sendObject(d, b, doc, res, status, head);
      return;
    }
  }
  if (status === 403) page(res, 403, 'AccessDenied', 'Access Denied', head);
  else page(res, 404, 'NoSuchKey', 'The specified key does not exist.', head);
}

async function sendObject(
  d: WebsiteDeps,
  b: BucketRow,
  o: ObjectRow,
  res: ServerResponse,
  status: number,
  head: boolean,
) {
  const size = Number(o.size);
  res.writeHead(status, {
    'content-type': o.content_type,
    'content-length': size,
    etag: quoted(o.etag),
    'last-modified': httpDate(o.last_modified),
  });
  if (head || size === 0) {
    res.end();
    return;
  }
  let sent = 0;
  const meter = new PassThrough();
  meter.on('data', (chunk: Buffer) => {
    sent += chunk.length;
  });
  try {
    await pipeline(await d.data.read(o), meter, res);
  } finally {
    d.data.sent(b, sent);
  }
}

/** The S3 call an anonymous website visitor amounts to (for the access check). */
function anonymousCall(
  req: IncomingMessage,
  res: ServerResponse,
  cluster: string,
  bucket: string,
  nowMs: number,
): S3Call {
  return {
    req,
    res,
    requestId: '',
    method: 'GET',
    cluster,
    bucket,
    key: undefined,
    query: new Map(),
    op: 'GetObject',
    caller: ANONYMOUS,
    sourceIp: req.socket?.remoteAddress ?? '',
    secure: (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true,
    nowMs,
    expectsContinue: false,
  };
}
