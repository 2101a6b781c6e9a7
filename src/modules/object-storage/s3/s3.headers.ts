import type { BucketRow, ObjectRow } from '../objects.repository.js';
import { header } from './s3.auth.js';
import type { S3Call } from './s3.context.js';
import { httpDate, msOf, quoted } from './s3.context.js';
import { s3errors } from './s3.errors.js';

/** Headers stored with an object and sent back on GET and HEAD. */
const KEPT_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
  'x-amz-website-redirect-location',
];

/** S3's limit on user metadata (names and values of `x-amz-meta-*`). */
const MAX_METADATA_BYTES = 2048;

/**
 * The user metadata and kept headers of a write. `aws-chunked` is the body's framing, not the
 * object's encoding: it is left out of the stored Content-Encoding.
 */
export function metadataOf(c: S3Call): Record<string, string> {
  const out: Record<string, string> = {};
  let metaBytes = 0;
  for (const [k, v] of Object.entries(c.req.headers)) {
    if (typeof v !== 'string') continue;
    if (k.startsWith('x-amz-meta-')) {
      metaBytes += Buffer.byteLength(k.slice('x-amz-meta-'.length)) + Buffer.byteLength(v);
      out[k] = v;
    } else if (k === 'content-encoding') {
      const codings = v.split(',').map((s) => s.trim());
      const framed = codings.some((s) => s.toLowerCase() === 'aws-chunked');
      const kept = framed
        ? codings.filter((s) => s !== '' && s.toLowerCase() !== 'aws-chunked').join(', ')
        : v;
      if (kept !== '') out[k] = kept;
    } else if (KEPT_HEADERS.includes(k)) {
      out[k] = v;
    }
  }
  if (metaBytes > MAX_METADATA_BYTES) throw s3errors.metadataTooLarge();
  return out;
}

export function contentTypeOf(c: S3Call): string {
  return header(c.req, 'content-type') ?? 'binary/octet-stream';
}

/**
 * Parses `Range: bytes=…` against a size: null when absent or not a single byte range (S3
 * answers the whole object), 416 when unsatisfiable (an empty object has no byte to give).
 */
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
    if (n === 0 || size === 0) throw s3errors.invalidRange(size);
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size) throw s3errors.invalidRange(size);
  return { start, end };
}

/** The stored headers of an object and S3's own, for GET and HEAD. */
export function objectHeaders(b: BucketRow, o: ObjectRow): Record<string, string | number> {
  const h: Record<string, string | number> = {
    'content-type': o.content_type,
    etag: quoted(o.etag),
    'last-modified': httpDate(o.last_modified),
    'accept-ranges': 'bytes',
  };
  for (const [k, v] of Object.entries(JSON.parse(o.metadata) as Record<string, string>)) h[k] = v;
  if (b.versioning !== null) h['x-amz-version-id'] = o.version_id;
  if (o.tags) {
    const n = Object.keys(JSON.parse(o.tags) as Record<string, string>).length;
    if (n > 0) h['x-amz-tagging-count'] = n;
  }
  if (o.lock_mode && o.lock_until) {
    h['x-amz-object-lock-mode'] = o.lock_mode;
    h['x-amz-object-lock-retain-until-date'] = o.lock_until;
  }
  if (b.object_lock === 1) h['x-amz-object-lock-legal-hold'] = o.legal_hold === 1 ? 'ON' : 'OFF';
  return h;
}

const OVERRIDES = [
  ['response-content-type', 'content-type'],
  ['response-content-language', 'content-language'],
  ['response-expires', 'expires'],
  ['response-cache-control', 'cache-control'],
  ['response-content-disposition', 'content-disposition'],
  ['response-content-encoding', 'content-encoding'],
] as const;

/**
 * The `response-*` query overrides of a GET. S3 honours them only on signed requests (an
 * anonymous reader must not make a public object serve as another type); a CR or LF in one is
 * refused.
 */
export function applyOverrides(c: S3Call, h: Record<string, string | number>): void {
  const given = OVERRIDES.filter(([q]) => c.query.has(q));
  if (given.length === 0) return;
  if (c.caller.accountId === null)
    throw s3errors.invalidRequest(
      'Request specific response headers cannot be used for anonymous GET requests.',
    );
  for (const [q, name] of given) {
    const v = c.query.get(q) ?? '';
    // Header values carry no line breaks or other control characters (a split response).
    if (!validHeaderValue(v)) throw s3errors.invalidArgument(`Invalid value for ${q}`);
    h[name] = v;
  }
}

/** A header value: latin-1 text without control characters (a tab aside). */
function validHeaderValue(v: string): boolean {
  for (const ch of v) {
    const code = ch.codePointAt(0) ?? 0;
    if (code > 0xff || code === 0x7f || (code < 0x20 && code !== 0x09)) return false;
  }
  return true;
}

/** HTTP date → ms, or undefined when absent or not a date (S3 ignores bad dates). */
function dateHeader(c: S3Call, name: string): number | undefined {
  const v = header(c.req, name);
  if (v === undefined) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Whether an If-Match/If-None-Match list names this ETag (or `*`). */
export function etagMatches(h: string, etag: string): boolean {
  return h
    .split(',')
    .map((s) => s.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .some((s) => s === '*' || s === etag);
}

/**
 * The conditional headers of a GET or HEAD (RFC 7232, as S3 applies them): If-Match and
 * If-Unmodified-Since fail with 412; If-None-Match and If-Modified-Since answer 304. A true
 * If-Match overrides a false If-Unmodified-Since; a false If-None-Match overrides a true
 * If-Modified-Since.
 */
export function readConditions(c: S3Call, o: ObjectRow): 'ok' | 'not-modified' {
  const ifMatch = header(c.req, 'if-match');
  const ifNone = header(c.req, 'if-none-match');
  const since = dateHeader(c, 'if-modified-since');
  const unmodified = dateHeader(c, 'if-unmodified-since');
  const modified = msOf(o.last_modified);
  if (ifMatch !== undefined) {
    if (!etagMatches(ifMatch, o.etag)) throw s3errors.preconditionFailed();
  } else if (unmodified !== undefined && modified > unmodified) {
    throw s3errors.preconditionFailed();
  }
  if (ifNone !== undefined) {
    if (etagMatches(ifNone, o.etag)) return 'not-modified';
  } else if (since !== undefined && modified <= since) {
    return 'not-modified';
  }
  return 'ok';
}

/**
 * The write conditions of PutObject and CompleteMultipartUpload, checked against the current
 * object inside the write's transaction: `If-None-Match: *` (no object may exist: how lock
 * writers take a lock) or an ETag (the object must not be that one), and `If-Match` (the object
 * must exist, and be that one unless `*`).
 */
export function writeConditions(c: S3Call): ((current: ObjectRow | undefined) => void) | undefined {
  const ifNone = header(c.req, 'if-none-match');
  const ifMatch = header(c.req, 'if-match');
  if (ifNone === undefined && ifMatch === undefined) return undefined;
  return (current) => {
    if (ifNone !== undefined && current && etagMatches(ifNone, current.etag))
      throw s3errors.preconditionFailed();
    if (ifMatch !== undefined) {
      if (!current) throw s3errors.noSuchKey(c.key ?? '');
      if (!etagMatches(ifMatch, current.etag)) throw s3errors.preconditionFailed();
    }
  };
}

/** `x-amz-copy-source-if-*`: the copy's conditions on its source (412 when one fails). */
export function copySourceConditions(c: S3Call, src: ObjectRow): void {
  const ifMatch = header(c.req, 'x-amz-copy-source-if-match');
  const ifNone = header(c.req, 'x-amz-copy-source-if-none-match');
  const since = dateHeader(c, 'x-amz-copy-source-if-modified-since');
  const unmodified = dateHeader(c, 'x-amz-copy-source-if-unmodified-since');
  const modified = msOf(src.last_modified);
  if (ifMatch !== undefined) {
    if (!etagMatches(ifMatch, src.etag)) throw s3errors.preconditionFailed();
  } else if (unmodified !== undefined && modified > unmodified) {
    throw s3errors.preconditionFailed();
  }
  if (ifNone !== undefined) {
    if (etagMatches(ifNone, src.etag)) throw s3errors.preconditionFailed();
  } else if (since !== undefined && modified <= since) {
    throw s3errors.preconditionFailed();
  }
}

/** The storage class of a write: STANDARD is the only one (RGW's default placement). */
export function checkStorageClass(c: S3Call): void {
  const sc = header(c.req, 'x-amz-storage-class');
  if (sc !== undefined && sc !== 'STANDARD') throw s3errors.invalidStorageClass();
}

/**
 * Headers that ask for something Stratus does not do are refused by name (501), never accepted
 * and dropped: a client must not believe its data is encrypted at rest by the server, or
 * appended to, when it is not.
 */
export function refuseUnsupported(c: S3Call): void {
  const h = c.req.headers;
  checkEncryptionHeaders((name) => header(c.req, name));
  if (h['x-amz-server-side-encryption'] !== undefined)
    throw s3errors.headerNotImplemented(
      'x-amz-server-side-encryption',
      'server-side encryption with S3 or KMS managed keys; SSE-C is supported',
    );
  for (const name of [
    'x-amz-server-side-encryption-aws-kms-key-id',
    'x-amz-server-side-encryption-context',
    'x-amz-server-side-encryption-bucket-key-enabled',
  ]) {
    if (h[name] !== undefined) throw s3errors.headerNotImplemented(name, 'SSE-KMS');
  }
  if (h['x-amz-mfa'] !== undefined) throw s3errors.headerNotImplemented('x-amz-mfa', 'MFA delete');
  if (h['x-amz-write-offset-bytes'] !== undefined)
    throw s3errors.headerNotImplemented('x-amz-write-offset-bytes', 'appends');
  const owner = header(c.req, 'x-amz-object-ownership');
  if (owner !== undefined && owner !== 'ObjectWriter')
    throw s3errors.headerNotImplemented('x-amz-object-ownership', 'object ownership controls');
}

/** `x-amz-expected-bucket-owner`: the bucket must be that account's (403 otherwise). */
export function checkExpectedOwner(
  c: S3Call,
  ownerId: string,
  name = 'x-amz-expected-bucket-owner',
) {
  const want = header(c.req, name);
  if (want !== undefined && want !== ownerId) throw s3errors.accessDenied();
}

/**
 * Encryption headers that contradict each other, or name no method, are a 400 InvalidArgument
 * before anything else is said of them (S3 and RGW): an unknown `x-amz-server-side-encryption`,
 * SSE-C beside it, a KMS key id without `aws:kms`.
 */
export function checkEncryptionHeaders(get: (name: string) => string | undefined): void {
  const method = get('x-amz-server-side-encryption');
  if (method === undefined) {
    if (get('x-amz-server-side-encryption-aws-kms-key-id') !== undefined)
      throw s3errors.invalidArgument(
        'Server Side Encryption with KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms',
      );
    return;
  }
  if (!['AES256', 'aws:kms', 'aws:kms:dsse'].includes(method))
    throw s3errors.invalidArgument('The encryption method specified is not supported');
  if (get('x-amz-server-side-encryption-customer-algorithm') !== undefined)
    throw s3errors.invalidArgument(
      'Server Side Encryption with Customer provided key is incompatible with the encryption method specified',
    );
  if (method === 'AES256' && get('x-amz-server-side-encryption-aws-kms-key-id') !== undefined)
    throw s3errors.invalidArgument(
      'Server Side Encryption with KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms',
    );
}
