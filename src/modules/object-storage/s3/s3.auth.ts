import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Database } from '../../../db/database.js';
import type { Sealer } from '../../../platform/sealer.js';
import { keyUsable } from '../objects.rules.js';
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
  accessKey: string | null;
  limited: boolean;
  /** `cluster/bucket` → permission, for limited keys. */
  access: Map<string, KeyPermission>;
  /** How the body is protected: a hex SHA-256, `UNSIGNED-PAYLOAD` or a `STREAMING-…` mode. */
  payload: string;
  /** For signed aws-chunked bodies: what verifies each chunk's signature. */
  chunks?: { key: Buffer; amzDate: string; scope: string; seed: string };
}

export const ANONYMOUS: Caller = {
  accountId: null,
  accessKey: null,
  limited: false,
  access: new Map(),
  payload: 'UNSIGNED-PAYLOAD',
};

/** What the verifier needs about a request, parsed once by the dispatcher. */
export interface SignedRequest {
  req: IncomingMessage;
  method: string;
  /** Decoded path as received (with the mount prefix). */
  path: string;
  /** The raw (still encoded) path as received. */
  rawPath: string;
  query: [string, string][];
  /** The path-style resource `/bucket/key` (encoded), for Signature V2. */
  v2Resource: string;
  nowMs: number;
}

const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_PRESIGN_S = 7 * 24 * 3600;

/** Verifies AWS Signature V4 (header or query) and V2 (header or query) against stored keys. */
export class S3Authenticator {
  constructor(
    private readonly db: Database,
    private readonly sealer: Sealer,
  ) {}

  private async key(accessKey: string) {
    const row = await this.db.db
      .selectFrom('obj_keys')
      .leftJoin('users', 'users.id', 'obj_keys.user_id')
      .select([
        'obj_keys.id',
        'obj_keys.account_id',
        'obj_keys.limited',
        'obj_keys.secret_sealed',
        'users.restricted',
        'users.global_grants',
      ])
      .where('obj_keys.access_key', '=', accessKey)
      .executeTakeFirst();
    // A restricted creator who lost the grant to create keys loses their keys' use too.
    if (!row || !keyUsable(row)) throw s3errors.invalidAccessKey();
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
      limited: row.limited === 1,
      access,
      secret: await this.sealer.open(row.secret_sealed),
    };
  }

  async authenticate(s: SignedRequest): Promise<Caller> {
    const auth = s.req.headers.authorization;
    const q = new Map(s.query);
    if (auth?.startsWith('AWS4-HMAC-SHA256 ')) return this.v4Header(s, auth);
    if (q.get('X-Amz-Algorithm') === 'AWS4-HMAC-SHA256') return this.v4Query(s, q);
    if (auth?.startsWith('AWS ')) return this.v2(s, auth.slice(4), undefined);
    if (q.has('AWSAccessKeyId') && q.has('Signature'))
      return this.v2(s, `${q.get('AWSAccessKeyId')}:${q.get('Signature')}`, q.get('Expires'));
    if (auth !== undefined && auth !== '')
      throw s3errors.invalidArgument('Unsupported Authorization Type');
    return ANONYMOUS;
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
    // The path as the client encoded it, or as RFC 3986 encodes it.
    const base = {
      method: s.method,
      query: s.query,
      headers: s.req.headers,
      signedHeaders,
      payloadHash: payload,
      ...(skipQuery ? { skipQuery } : {}),
    };
    const ok = [{ path: s.path }, { path: s.path, rawUri: s.rawPath }].some((p) => {
      const sig = signature(key, stringToSign(amzDate, scope, canonicalRequest({ ...base, ...p })));
      return sameHex(sig, given);
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
      throw s3errors.invalidArgument('Malformed Authorization header');
    if (!signedHeaders.includes('host'))
      throw s3errors.invalidArgument('The host header must be signed');
    const amzDate = header(s.req, 'x-amz-date') ?? '';
    const at = parseAmzDate(amzDate);
    if (Number.isNaN(at)) throw s3errors.invalidArgument('Missing or invalid X-Amz-Date');
    if (Math.abs(s.nowMs - at) > MAX_SKEW_MS) throw s3errors.skewed();
    const payload = header(s.req, 'x-amz-content-sha256') ?? 'UNSIGNED-PAYLOAD';
    const k = await this.key(credential[0] ?? '');
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
      accessKey: credential[0] ?? null,
      limited: k.limited,
      access: k.access,
      payload,
      ...(payload.startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD')
        ? { chunks: { key: signingKey, amzDate, scope, seed: given } }
        : {}),
    };
  }

  private async v4Query(s: SignedRequest, q: Map<string, string>): Promise<Caller> {
    const credential = (q.get('X-Amz-Credential') ?? '').split('/');
    const amzDate = q.get('X-Amz-Date') ?? '';
    const expires = Number(q.get('X-Amz-Expires') ?? 'NaN');
    const signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
    const given = q.get('X-Amz-Signature') ?? '';
    const at = parseAmzDate(amzDate);
    if (
      credential.length !== 5 ||
      Number.isNaN(at) ||
      given === '' ||
      !signedHeaders.includes('host')
    )
      throw s3errors.invalidArgument('Malformed pre-signed URL');
    if (!Number.isInteger(expires) || expires < 1 || expires > MAX_PRESIGN_S)
      throw s3errors.invalidArgument('X-Amz-Expires must be between 1 and 604800 seconds');
    if (s.nowMs > at + expires * 1000) throw s3errors.expired();
    if (at - s.nowMs > MAX_SKEW_MS) throw s3errors.skewed();
    const payload = q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
    const k = await this.key(credential[0] ?? '');
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
      accessKey: credential[0] ?? null,
      limited: k.limited,
      access: k.access,
      payload,
    };
  }

  /** Signature V2: HMAC-SHA1 over method, MD5, type, date or expiry, amz headers, resource. */
  private async v2(s: SignedRequest, cred: string, expires: string | undefined): Promise<Caller> {
    const i = cred.lastIndexOf(':');
    const accessKey = cred.slice(0, i);
    const given = cred.slice(i + 1);
    let date = header(s.req, 'date') ?? '';
    if (expires !== undefined) {
      const exp = Number(expires);
      if (!Number.isInteger(exp)) throw s3errors.invalidArgument('Invalid Expires');
      if (s.nowMs > exp * 1000) throw s3errors.expired();
      date = expires;
    } else if (header(s.req, 'x-amz-date') !== undefined) {
      date = '';
    }
    const amz = Object.keys(s.req.headers)
      .filter((h) => h.startsWith('x-amz-'))
      .sort()
      .map((h) => `${h}:${header(s.req, h)?.trim()}\n`)
      .join('');
    const sub = s.query
      .filter(([k]) => V2_SUBRESOURCES.has(k))
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => (v === '' ? k : `${k}=${v}`))
      .join('&');
    const k = await this.key(accessKey);
    const ok = [s.v2Resource, s.rawPath].some((res) => {
      const toSign = [
        s.method,
        header(s.req, 'content-md5') ?? '',
        header(s.req, 'content-type') ?? '',
        date,
        `${amz}${res}${sub ? `?${sub}` : ''}`,
      ].join('\n');
      const sig = createHmac('sha1', k.secret).update(toSign).digest('base64');
      return sameHex(sig, given);
    });
    if (!ok) throw s3errors.signatureMismatch();
    return {
      accountId: k.accountId,
      accessKey,
      limited: k.limited,
      access: k.access,
      payload: 'UNSIGNED-PAYLOAD',
    };
  }
}

const V2_SUBRESOURCES = new Set([
  'acl',
  'cors',
  'delete',
  'location',
  'partNumber',
  'uploadId',
  'uploads',
  'versioning',
  'response-content-type',
  'response-content-disposition',
  'response-cache-control',
  'response-expires',
]);

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}
