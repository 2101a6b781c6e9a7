import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../../../db/database.js';
import { bucketOfHost } from '../objects.clusters.js';
import type { ObjectData } from '../objects.data.js';
import { findBucket, findObject } from '../objects.repository.js';

/** Where static websites are served: a cluster's `static_site_domain` is `<host>/<this>/<cluster>`. */
export const S3_WEBSITE_PREFIX = '/_stratus/s3-website';

const PUBLIC = ['public-read', 'public-read-write'];

function page(res: ServerResponse, status: number, code: string, message: string, head: boolean) {
  const body = `<html><head><title>${status} ${code}</title></head><body><h1>${status} ${code}</h1><ul><li>Code: ${code}</li><li>Message: ${message}</li></ul></body></html>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': head ? 0 : Buffer.byteLength(body),
  });
  res.end(head ? undefined : body);
}

/**
 * Static websites of public-read buckets, at `<static_site_domain>/<bucket>/<path>` or
 * `<bucket>.<static_site_domain host>` (virtual-host style): anonymous GET and HEAD only; a
 * folder (`…/` or the bucket's root) answers its `index.html`, a missing key the bucket's
 * `error.html` with 404. Errors are HTML pages, as S3 websites answer.
 */
export async function serveWebsite(
  d: {
    db: Database;
    data: ObjectData;
    clusters: readonly string[];
    hostSuffixes: readonly string[];
  },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) {
    page(res, 405, 'MethodNotAllowed', 'Websites answer GET and HEAD only.', head);
    return;
  }
  const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
  const segs = rawPath.slice(S3_WEBSITE_PREFIX.length).replace(/^\//, '').split('/');
  const hostBucket = bucketOfHost(req.headers.host, d.hostSuffixes);
  if (hostBucket !== undefined) segs.splice(1, 0, encodeURIComponent(hostBucket));
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
    page(res, 400, 'InvalidURI', 'Invalid URI encoding.', head);
    return;
  }
  const b =
    d.clusters.includes(cluster) && label ? await findBucket(d.db, cluster, label) : undefined;
  if (!b) {
    page(res, 404, 'NoSuchBucket', 'The specified bucket does not exist.', head);
    return;
  }
  if (!PUBLIC.includes(b.acl)) {
    page(res, 403, 'AccessDenied', 'Access Denied', head);
    return;
  }
  if (key === '' || key.endsWith('/')) key += 'index.html';
  let o = await findObject(d.db, b.id, key);
  let status = 200;
  if (!o) {
    status = 404;
    o = await findObject(d.db, b.id, 'error.html');
    if (!o) {
      page(res, 404, 'NoSuchKey', 'The specified key does not exist.', head);
      return;
    }
  }
  const size = Number(o.size);
  res.writeHead(status, {
    'content-type': o.content_type,
    'content-length': size,
    etag: `"${o.etag}"`,
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
