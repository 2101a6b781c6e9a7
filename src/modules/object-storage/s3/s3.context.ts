import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Database } from '../../../db/database.js';
import { type Caller, header } from './s3.auth.js';
import { AwsChunkedDecoder } from './s3.chunked.js';
import { s3errors } from './s3.errors.js';
import type { GranteeResolver } from './s3.acl.js';

/** One data-plane request, parsed: its cluster, bucket and key, and who sent it. */
export interface S3Call {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  method: string;
  cluster: string;
  bucket: string | undefined;
  key: string | undefined;
  query: Map<string, string>;
  /** The operation's name (s3.operations.ts). */
  op: string;
  caller: Caller;
  /** The client's address (policy key aws:SourceIp). */
  sourceIp: string;
  /** Whether the connection is TLS (policy key aws:SecureTransport). */
  secure: boolean;
  /** The clock's time when the request arrived. */
  nowMs: number;
  /** Whether the client waits for `100 Continue` before it sends the body. */
  expectsContinue: boolean;
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
  } else if (h['content-length'] === undefined && status !== 304 && status !== 204) {
    h['content-length'] = 0;
  }
  c.res.writeHead(status, h);
  c.res.end(c.method === 'HEAD' ? undefined : body);
}

/** Answers a body of another type than XML (a bucket policy's JSON). */
export function sendText(c: S3Call, status: number, body: string, contentType: string): void {
  c.res.writeHead(status, {
    'x-amz-request-id': c.requestId,
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  });
  c.res.end(c.method === 'HEAD' ? undefined : body);
}

/** Tells a client that waits for `100 Continue` to send its body (once it is authorized). */
export function continueBody(c: S3Call): void {
  if (c.expectsContinue && !c.res.headersSent) {
    c.expectsContinue = false;
    c.res.writeContinue();
  }
}

/** The request body, with aws-chunked framing removed and digests the caller promised. */
export function body(c: S3Call): { stream: Readable; sha256?: string; md5Base64?: string } {
  const p = c.caller.payload;
  const md5 = header(c.req, 'content-md5');
  continueBody(c);
  // Framed when the payload mode says so, or the encoding does with the decoded length S3 asks
  // for; an `aws-chunked` encoding on a plain body (boto3 sends one as asked) is not framing.
  const chunked =
    p.startsWith('STREAMING-') ||
    (isAwsChunked(c.req) && header(c.req, 'x-amz-decoded-content-length') !== undefined);
  const stream = chunked
    ? c.req.pipe(
        new AwsChunkedDecoder(p.startsWith('STREAMING-AWS4') ? c.caller.chunks : undefined),
      )
    : (c.req as Readable);
  if (chunked) {
    c.req.on('error', (e) => stream.destroy(e));
    // A framing error can come after the reader stopped (a refused or failed write, a body
    // cut short): readers see it through their own listeners; it must never go unhandled.
    stream.on('error', () => {});
  }
  return {
    stream,
    ...(/^[0-9a-f]{64}$/.test(p) ? { sha256: p } : {}),
    ...(md5 !== undefined ? { md5Base64: md5 } : {}),
  };
}

/** Whether the body is framed as aws-chunked (the encoding names it, or the payload mode). */
export function isAwsChunked(req: IncomingMessage): boolean {
  const ce = header(req, 'content-encoding') ?? '';
  return ce
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .includes('aws-chunked');
}

/** Reads a small XML request body (at most 1 MiB), checking Content-MD5 when sent. */
export async function smallBody(c: S3Call, limit = 1024 * 1024): Promise<string> {
  const { stream, sha256, md5Base64 } = body(c);
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    n += (chunk as Buffer).length;
    if (n > limit) throw s3errors.malformedXml();
    parts.push(chunk as Buffer);
  }
  const all = Buffer.concat(parts);
  if (sha256 !== undefined && createHash('sha256').update(all).digest('hex') !== sha256)
    throw s3errors.sha256Mismatch();
  if (md5Base64 !== undefined) {
    if (!/^[A-Za-z0-9+/]{22}==$/.test(md5Base64)) throw s3errors.invalidDigest();
    if (createHash('md5').update(all).digest('base64') !== md5Base64) throw s3errors.badDigest();
  }
  return all.toString('utf8');
}

/** ETag header form. */
export const quoted = (etag: string) => `"${etag}"`;

/** HTTP date of a stored `YYYY-MM-DDTHH:MM:SS` UTC time. */
export const httpDate = (t: string) => new Date(`${t}Z`).toUTCString();
/** ISO form S3 XML uses. */
export const isoDate = (t: string) => `${t}.000Z`;
/** Epoch ms of a stored `YYYY-MM-DDTHH:MM:SS` UTC time. */
export const msOf = (t: string) => Date.parse(`${t}Z`);

/**
 * Accounts as the data plane names them: by canonical id (the account's euuid), and by the
 * e-mail address of the account or one of its users (grants by e-mail).
 */
export class S3Accounts implements GranteeResolver {
  private readonly ids = new Map<number, string>();

  constructor(private readonly db: Database) {}

  /** The canonical id of an account (cached: an euuid never changes). */
  async canonicalId(accountId: number): Promise<string> {
    const known = this.ids.get(accountId);
    if (known) return known;
    const row = await this.db.db
      .selectFrom('accounts')
      .select('euuid')
      .where('id', '=', accountId)
      .executeTakeFirst();
    const id = row?.euuid ?? String(accountId);
    if (row) this.ids.set(accountId, id);
    return id;
  }

  async byId(id: string): Promise<string | undefined> {
    const row = await this.db.db
      .selectFrom('accounts')
      .select('euuid')
      .where('euuid', '=', id)
      .executeTakeFirst();
    return row?.euuid;
  }

  async byEmail(email: string): Promise<string | undefined> {
    const acct = await this.db.db
      .selectFrom('accounts')
      .select('euuid')
      .where('email', '=', email)
      .executeTakeFirst();
    if (acct) return acct.euuid;
    const user = await this.db.db
      .selectFrom('users')
      .innerJoin('accounts', 'accounts.id', 'users.account_id')
      .select('accounts.euuid')
      .where('users.email', '=', email)
      .executeTakeFirst();
    return user?.euuid;
  }
}
