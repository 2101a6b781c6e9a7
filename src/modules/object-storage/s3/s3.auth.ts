import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Database } from '../../../db/database.js';
import type { Sealer } from '../../../platform/sealer.js';
import { keyUsable } from '../objects.rules.js';
import { regionOfCluster } from '../objects.clusters.js';
import { keyRegions } from '../keys.service.js';
import type { KeyPermission } from '../objects.table.js';
import { s3errors } from './s3.errors.js';
import {
  canonicalRequest,
  parseAmzDate,
  sameHex,
  signature,
  signingKey,
  stringToSign,
} from './sigv4.js';

/** Who sent a data-plane request: an access key of an account, or nobody. */
export interface Caller {
  accountId: number | null;
  /** The account's canonical user id (its euuid), as ACLs and policies name it. */
  canonicalId: string | null;
  accessKey: string | null;
  limited: boolean;
  /** `cluster/bucket` → permission, for limited keys. */
  access: Map<string, KeyPermission>;
  /** How the body is protected: a hex SHA-256, `UNSIGNED-PAYLOAD` or a `STREAMING-…` mode. */
  payload: string;
  /** For signed aws-chunked bodies: what verifies each chunk's signature. */
  chunks?: { key: Buffer; amzDate: string; scope: string; seed: string };
  /** `AWS4-HMAC-SHA256` or `AWS` (V2), null when anonymous (policy key s3:signatureversion). */
  signatureVersion: 'AWS4-HMAC-SHA256' | 'AWS' | null;
  /** `REST-HEADER`, `REST-QUERY-STRING` or `POST` (policy key s3:authType), null when anonymous. */
  authType: 'REST-HEADER' | 'REST-QUERY-STRING' | 'POST' | null;
  /** When the request was signed (epoch ms), for s3:signatureAge. */
  signedAtMs?: number;
}

export const ANONYMOUS: Caller = {
  accountId: null,
  canonicalId: null,
  accessKey: null,
  limited: false,
  access: new Map(),
  payload: 'UNSIGNED-PAYLOAD',
  signatureVersion: null,
  authType: null,
};

/** What the verifier needs about a request, parsed once by the dispatcher. */
export interface SignedRequest {
  req: IncomingMessage;
  method: string;
  /** Decoded path as received (with any mount prefix). */
  path: string;
  /** The raw (still encoded) path as received. */
  rawPath: string;
  query: [string, string][];
  /** The raw query string (V2 signs sub-resources as they were written). */
  rawQuery: string;
  /** The path-style resource `/bucket/key` (encoded), for Signature V2. */
  v2Resource: string;
  /** The cluster addressed: a SigV4 credential names it as its region (or `auto`). */
  cluster: string;
  nowMs: number;
}

const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_PRESIGN_S = 7 * 24 * 3600;

/** A key's account, limits and secret. */
interface KeyRecord {
  accountId: number;
  canonicalId: string;
  limited: boolean;
  access: Map<string, KeyPermission>;
  secret: string;
}

/** The secret of a key and who it is, for callers that verify a signature themselves (POST). */
export interface KeyLookup {
  key(accessKey: string, cluster?: string): Promise<KeyRecord>;
}

/** Verifies AWS Signature V4 (header or query) and V2 (header or query) against stored keys. */
export class S3Authenticator implements KeyLookup {
  constructor(
    private readonly db: Database,
    private readonly sealer: Sealer,
  ) {}

  /**
   * A key by its access key id; with `cluster`, only a key that works there (a key limited to
   * regions does not exist in the others' clusters: InvalidAccessKeyId, as RGW answers).
   */
  async key(accessKey: string, cluster?: string): Promise<KeyRecord> {
    const row = await this.db.db
      .selectFrom('obj_keys')
      .innerJoin('accounts', 'accounts.id', 'obj_keys.account_id')
      .leftJoin('users', 'users.id', 'obj_keys.user_id')
      .select([
        'obj_keys.id',
        'obj_keys.account_id',
        'obj_keys.limited',
        'obj_keys.secret_sealed',
        'obj_keys.regions',
        'accounts.euuid',
        'users.restricted',
        'users.global_grants',
      ])
      .where('obj_keys.access_key', '=', accessKey)
      .executeTakeFirst();
    // A restricted creator who lost the grant to create keys loses their keys' use too.
    if (!row || !keyUsable(row)) throw s3errors.invalidAccessKey();
    const regions = keyRegions(row);
    if (cluster !== undefined && regions !== null && !regions.includes(regionOfCluster(cluster)))
      throw s3errors.invalidAccessKey();
    const access = new Map<string, KeyPermission>();
    if (row.limited === 1) {
      const rows = await this.db.db
        .selectFrom('obj_key_buckets')
        .selectAll()
        .where('key_id', '=', row.id)
        .execute();
      for (const r of rows) access.set(`${r.cluster}/${r.bucket_name}`, r.permissions);
    }
    return {
      accountId: row.account_id,
      canonicalId: row.euuid,
      limited: row.limited === 1,
      access,
      secret: await this.sealer.open(row.secret_sealed),
    };
  }

  async authenticate(s: SignedRequest): Promise<Caller> {
    const auth = s.req.headers.authorization;
    const q = new Map(s.query);
    if (auth?.startsWith('AWS4-HMAC-SHA256 ')) return this.v4Header(s, auth);
    if (q.has('X-Amz-Algorithm') || q.has('X-Amz-Credential') || q.has('X-Amz-Signature')) {
      if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
        throw s3errors.authorizationQueryParametersError(
          'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"',
        );
      return this.v4Query(s, q);
    }
    if (auth?.startsWith('AWS ')) return this.v2(s, auth.slice(4), undefined);
    if (q.has('AWSAccessKeyId') || q.has('Signature')) {
      if (!q.has('AWSAccessKeyId') || !q.has('Signature') || !q.has('Expires'))
        throw s3errors.accessDenied(
          'Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters',
        );
      return this.v2(s, `${q.get('AWSAccessKeyId')}:${q.get('Signature')}`, q.get('Expires'));
    }
    if (auth !== undefined && auth !== '')
      throw s3errors.invalidArgument('Unsupported Authorization Type');
    return ANONYMOUS;
  }

  /**
   * The region a credential names must be the cluster's, its region's id (clients configured
   * from a bucket's `region`), or `auto` (as some clients sign).
   */
  private checkRegion(region: string, cluster: string, query: boolean): void {
    if (region === cluster || region === regionOfCluster(cluster) || region === 'auto') return;
    if (query)
      throw s3errors.authorizationQueryParametersError(
        `Error parsing the X-Amz-Credential parameter; the region '${region}' is wrong; expecting '${cluster}'`,
      );
    throw s3errors.authorizationHeaderMalformed(region, cluster);
  }

  private checkV4(
    s: SignedRequest,
    secret: string,
    credential: string[],
    amzDate: string,
    signedHeaders: string[],
    payload: string,
    given: string,
    skipQuery?: string,
  ): Buffer {
    const [, date, region, service] = credential;
    if (!date || !region || service !== 's3' || credential[4] !== 'aws4_request')
      throw s3errors.invalidArgument('Invalid credential scope');
    if (!amzDate.startsWith(date)) throw s3errors.signatureMismatch();
    const key = signingKey(secret, date, region, 's3');
    const scope = `${date}/${region}/s3/aws4_request`;
    const utf8Headers = reinterpretUtf8(s.req.headers, signedHeaders);
    const forms = [
      { path: s.path, headers: s.req.headers },
      { path: s.path, rawUri: s.rawPath, headers: s.req.headers },
      ...(utf8Headers
        ? [
            { path: s.path, headers: utf8Headers },
            { path: s.path, rawUri: s.rawPath, headers: utf8Headers },
          ]
        : []),
    ];
    // The path as the client encoded it, or as RFC 3986 encodes it; header values as the bytes
    // came (latin-1) or as UTF-8 text (clients differ in how they sign non-ASCII values).
    const ok = forms.some((f) => {
      const canonical = canonicalRequest({
        method: s.method,
        query: s.query,
        signedHeaders,
        payloadHash: payload,
        ...(skipQuery ? { skipQuery } : {}),
        ...f,
      });
      return sameHex(signature(key, stringToSign(amzDate, scope, canonical)), given);
    });
    if (!ok) throw s3errors.signatureMismatch();
    return key;
  }

  private async v4Header(s: SignedRequest, auth: string): Promise<Caller> {
    const fields = new Map<string, string>();
    for (const part of auth.slice('AWS4-HMAC-SHA256 '.length).split(',')) {
      const i = part.indexOf('=');
      if (i > 0) fields.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
    }
    const credential = (fields.get('Credential') ?? '').split('/');
    const signedHeaders = (fields.get('SignedHeaders') ?? '').split(';').filter(Boolean);
    const given = fields.get('Signature') ?? '';
    if (credential.length !== 5 || signedHeaders.length === 0 || given === '')
      throw s3errors.authorizationHeaderMalformedText(
        'The authorization header is malformed; the Credential is mal-formed',
      );
    if (!signedHeaders.includes('host'))
      throw s3errors.accessDenied('The host header must be signed');
    this.checkRegion(credential[2] ?? '', s.cluster, false);
    const amzDate = header(s.req, 'x-amz-date') ?? dateHeaderAsAmz(header(s.req, 'date'));
    const at = parseAmzDate(amzDate);
    if (Number.isNaN(at))
      throw s3errors.accessDenied('AWS authentication requires a valid Date or x-amz-date header');
    if (Math.abs(s.nowMs - at) > MAX_SKEW_MS) throw s3errors.skewed();
    const payload = header(s.req, 'x-amz-content-sha256');
    if (payload === undefined)
      throw s3errors.invalidRequest(
        'Missing required header for this request: x-amz-content-sha256',
      );
    const k = await this.key(credential[0] ?? '', s.cluster);
    const signingKey = this.checkV4(
      s,
      k.secret,
      credential,
      amzDate,
      signedHeaders,
      payload,
      given,
    );
    const scope = credential.slice(1).join('/');
    return {
      accountId: k.accountId,
      canonicalId: k.canonicalId,
      accessKey: credential[0] ?? null,
      limited: k.limited,
      access: k.access,
      payload,
      signatureVersion: 'AWS4-HMAC-SHA256',
      authType: 'REST-HEADER',
      signedAtMs: at,
      ...(payload.startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD')
        ? { chunks: { key: signingKey, amzDate, scope, seed: given } }
        : {}),
    };
  }

  private async v4Query(s: SignedRequest, q: Map<string, string>): Promise<Caller> {
    const credential = (q.get('X-Amz-Credential') ?? '').split('/');
    const amzDate = q.get('X-Amz-Date') ?? '';
    const expiresText = q.get('X-Amz-Expires') ?? '';
    const signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
    const given = q.get('X-Amz-Signature') ?? '';
    const at = parseAmzDate(amzDate);
    if (credential.length !== 5)
      throw s3errors.authorizationQueryParametersError(
        'Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
      );
    if (Number.isNaN(at))
      throw s3errors.authorizationQueryParametersError(
        "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"",
      );
    if (!/^-?\d+$/.test(expiresText))
      throw s3errors.authorizationQueryParametersError('X-Amz-Expires should be a number');
    const expires = Number(expiresText);
    // RGW (the provider's engine) refuses these as expired: 403, where AWS answers 400.
    if (expires < 1 || expires > MAX_PRESIGN_S) throw s3errors.expired();
    if (given === '' || !signedHeaders.includes('host'))
      throw s3errors.authorizationQueryParametersError(
        'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
      );
    this.checkRegion(credential[2] ?? '', s.cluster, true);
    if (s.nowMs > at + expires * 1000) throw s3errors.expired();
    if (at - s.nowMs > MAX_SKEW_MS) throw s3errors.accessDenied('Request is not valid yet');
    const payload = q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
    const k = await this.key(credential[0] ?? '', s.cluster);
    this.checkV4(
      s,
      k.secret,
      credential,
      amzDate,
      signedHeaders,
      payload,
      given,
      'X-Amz-Signature',
    );
    return {
      accountId: k.accountId,
      canonicalId: k.canonicalId,
      accessKey: credential[0] ?? null,
      limited: k.limited,
      access: k.access,
      payload,
      signatureVersion: 'AWS4-HMAC-SHA256',
      authType: 'REST-QUERY-STRING',
      signedAtMs: at,
    };
  }

  /**
   * Signature V2: HMAC-SHA1 over method, MD5, type, date (or expiry), amz headers and resource.
   * The request time is checked as S3 checks it (15 minutes either way), and a pre-signed V2
   * URL lives at most as long as a SigV4 one (7 days).
   */
  private async v2(s: SignedRequest, cred: string, expires: string | undefined): Promise<Caller> {
    const i = cred.lastIndexOf(':');
    if (i <= 0)
      throw s3errors.invalidArgument(
        'AWS authorization header is invalid.  Expected AwsAccessKeyId:signature',
      );
    const accessKey = cred.slice(0, i);
    const given = cred.slice(i + 1);
    let date: string;
    let signedAtMs: number;
    if (expires !== undefined) {
      if (!/^\d+$/.test(expires))
        throw s3errors.accessDenied('Invalid date (should be seconds since epoch)');
      const exp = Number(expires) * 1000;
      if (s.nowMs > exp) throw s3errors.expired();
      if (exp - s.nowMs > MAX_PRESIGN_S * 1000) throw s3errors.expired();
      date = expires;
      signedAtMs = s.nowMs;
    } else {
      const amzDate = header(s.req, 'x-amz-date');
      const httpDate = header(s.req, 'date');
      const when = parseHttpDate(amzDate ?? httpDate);
      if (Number.isNaN(when))
        throw s3errors.accessDenied(
          'AWS authentication requires a valid Date or x-amz-date header',
        );
      if (Math.abs(s.nowMs - when) > MAX_SKEW_MS) throw s3errors.skewed();
      // With x-amz-date the Date line is empty (the amz header is signed among the others).
      date = amzDate !== undefined ? '' : (httpDate ?? '');
      signedAtMs = when;
    }
    const amz = Object.keys(s.req.headers)
      .filter((h) => h.startsWith('x-amz-'))
      .sort()
      .map((h) => `${h}:${header(s.req, h)?.trim()}\n`)
      .join('');
    const k = await this.key(accessKey, s.cluster);
    const resources = new Set([s.v2Resource, s.rawPath]);
    // A bucket's own resource is `/bucket/` (virtual-host clients) or `/bucket` (path style).
    for (const r of [...resources]) {
      if (/^\/[^/]+$/.test(r)) resources.add(`${r}/`);
      if (/^\/[^/]+\/$/.test(r)) resources.add(r.slice(0, -1));
    }
    const subs = v2SubResources(s.rawQuery);
    const ok = [...resources].some((res) =>
      subs.some((sub) => {
        const toSign = [
          s.method,
          header(s.req, 'content-md5') ?? '',
          header(s.req, 'content-type') ?? '',
          date,
          `${amz}${res}${sub ? `?${sub}` : ''}`,
        ].join('\n');
        const sig = createHmac('sha1', k.secret).update(toSign, 'utf8').digest('base64');
        return sameHex(sig, given);
      }),
    );
    if (!ok) throw s3errors.signatureMismatch();
    return {
      accountId: k.accountId,
      canonicalId: k.canonicalId,
      accessKey,
      limited: k.limited,
      access: k.access,
      payload: 'UNSIGNED-PAYLOAD',
      signatureVersion: 'AWS',
      authType: expires !== undefined ? 'REST-QUERY-STRING' : 'REST-HEADER',
      signedAtMs,
    };
  }
}

/** The query parameters Signature V2 signs (sub-resources and response overrides). */
const V2_SUBRESOURCES = new Set([
  'accelerate',
  'acl',
  'analytics',
  'cors',
  'delete',
  'encryption',
  'inventory',
  'legal-hold',
  'lifecycle',
  'location',
  'logging',
  'metrics',
  'notification',
  'object-lock',
  'partNumber',
  'policy',
  'policyStatus',
  'publicAccessBlock',
  'replication',
  'requestPayment',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
  'response-content-language',
  'response-content-type',
  'response-expires',
  'restore',
  'retention',
  'select',
  'select-type',
  'storageClass',
  'tagging',
  'torrent',
  'uploadId',
  'uploads',
  'versionId',
  'versioning',
  'versions',
  'website',
]);

/**
 * The signed sub-resource string of a raw query, in the forms clients write it: values decoded,
 * sorted by name; a parameter written without `=` appears without one (botocore), and clients
 * that drop `=` from every empty value are tried too.
 */
function v2SubResources(rawQuery: string): string[] {
  if (rawQuery === '') return [''];
  const pairs: { k: string; v: string | undefined }[] = [];
  for (const part of rawQuery.split('&')) {
    const at = part.indexOf('=');
    const k = safeDecode(at < 0 ? part : part.slice(0, at));
    if (!V2_SUBRESOURCES.has(k)) continue;
    pairs.push({ k, v: at < 0 ? undefined : safeDecode(part.slice(at + 1).replace(/\+/g, ' ')) });
  }
  pairs.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const asWritten = pairs.map((p) => (p.v === undefined ? p.k : `${p.k}=${p.v}`)).join('&');
  const dropEmpty = pairs.map((p) => (p.v ? `${p.k}=${p.v}` : p.k)).join('&');
  return asWritten === dropEmpty ? [asWritten] : [asWritten, dropEmpty];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Epoch ms of an HTTP date or an ISO 8601 basic date (`20260301T120000Z`), or NaN. */
function parseHttpDate(v: string | undefined): number {
  if (v === undefined || v.trim() === '') return Number.NaN;
  const amz = parseAmzDate(v.trim());
  if (!Number.isNaN(amz)) return amz;
  return Date.parse(v);
}

/** A `Date` header in the `x-amz-date` form (SigV4 accepts either). */
function dateHeaderAsAmz(v: string | undefined): string {
  const ms = parseHttpDate(v);
  if (Number.isNaN(ms)) return '';
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * The signed headers with values re-read as UTF-8 when any has bytes beyond ASCII (Node reads
 * header bytes as latin-1), or undefined when none does.
 */
function reinterpretUtf8(
  headers: IncomingMessage['headers'],
  signed: string[],
): IncomingMessage['headers'] | undefined {
  let changed = false;
  const out: IncomingMessage['headers'] = { ...headers };
  for (const h of signed) {
    const v = headers[h];
    if (typeof v !== 'string' || !/[\u0080-\u00ff]/.test(v)) continue;
    out[h] = Buffer.from(v, 'latin1').toString('utf8');
    changed = true;
  }
  return changed ? out : undefined;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}
