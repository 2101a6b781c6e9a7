import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept; `/` kept in paths). */
export function uriEncode(s: string, keepSlash = false): string {
  let out = '';
  for (const ch of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(ch);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += `%${ch.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) =>
  createHmac('sha256', key).update(data).digest();

export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/** `[name, value]` pairs of a raw query string, decoded. */
export function parseQuery(raw: string): [string, string][] {
  if (raw === '') return [];
  return raw.split('&').map((kv) => {
    const i = kv.indexOf('=');
    const k = i < 0 ? kv : kv.slice(0, i);
    const v = i < 0 ? '' : kv.slice(i + 1);
    return [safeDecode(k), safeDecode(v)];
  });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function canonicalQuery(pairs: [string, string][], skip?: string): string {
  return pairs
    .filter(([k]) => k !== skip)
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

export interface CanonicalInput {
  method: string;
  /** The decoded path; encoded here. */
  path: string;
  query: [string, string][];
  headers: Record<string, string | string[] | undefined>;
  signedHeaders: string[];
  payloadHash: string;
  /** The query parameter left out (`X-Amz-Signature` when pre-signed). */
  skipQuery?: string;
  /** The canonical URI as the client encoded it, used instead of encoding `path`. */
  rawUri?: string;
}

export function canonicalRequest(c: CanonicalInput): string {
  const headerLines = c.signedHeaders.map((h) => {
    const v = c.headers[h];
    const value = (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');
    return `${h}:${value}\n`;
  });
  return [
    c.method,
    c.rawUri ?? uriEncode(c.path, true),
    canonicalQuery(c.query, c.skipQuery),
    headerLines.join(''),
    c.signedHeaders.join(';'),
    c.payloadHash,
  ].join('\n');
}

export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
}

export function signature(key: Buffer, toSign: string): string {
  return createHmac('sha256', key).update(toSign).digest('hex');
}

export function sameHex(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** `20260301T120000Z` from epoch ms. */
export function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Epoch ms of `20260301T120000Z`, or NaN. */
export function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return Number.NaN;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(y, mo - 1, d, h, mi, se);
}

export interface PresignInput {
  method: string;
  /** Absolute URL of the object (scheme, host, encoded path). */
  url: URL;
  accessKey: string;
  secret: string;
  region: string;
  nowMs: number;
  expiresIn: number;
  /** Extra signed headers (lower-case names), e.g. `content-type`. */
  headers?: Record<string, string>;
}

/** A SigV4 query-string pre-signed URL, as the AWS SDK's presigner makes them. */
export function presign(p: PresignInput): string {
  const date = amzDate(p.nowMs);
  const scope = `${date.slice(0, 8)}/${p.region}/s3/aws4_request`;
  const headers: Record<string, string> = { host: p.url.host, ...(p.headers ?? {}) };
  const signed = Object.keys(headers).sort();
  const query: [string, string][] = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${p.accessKey}/${scope}`],
    ['X-Amz-Date', date],
    ['X-Amz-Expires', String(p.expiresIn)],
    ['X-Amz-SignedHeaders', signed.join(';')],
  ];
  const canonical = canonicalRequest({
    method: p.method,
    path: decodeURIComponent(p.url.pathname),
    query,
    headers,
    signedHeaders: signed,
    payloadHash: 'UNSIGNED-PAYLOAD',
  });
  const sig = signature(
    signingKey(p.secret, date.slice(0, 8), p.region, 's3'),
    stringToSign(date, scope, canonical),
  );
  const qs = `${canonicalQuery(query)}&X-Amz-Signature=${sig}`;
  return `${p.url.origin}${p.url.pathname}?${qs}`;
}
