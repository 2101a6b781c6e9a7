import { createHmac } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { MAX_PUT_BYTES } from '../objects.data.js';
import type { BucketRow } from '../objects.repository.js';
import { authorize } from './s3.access.js';
import { cannedGrants, CANNED, storedAcl } from './s3.acl.js';
import { ANONYMOUS, type Caller, type KeyLookup } from './s3.auth.js';
import type { S3Env } from './s3.buckets.js';
import { continueBody, quoted, type S3Call, send } from './s3.context.js';
import { s3errors } from './s3.errors.js';
import { checkEncryptionHeaders } from './s3.headers.js';
import { lockForWrite } from './s3.lock.js';
import { customerKeyOf, sseHeaders, sseRecord } from './s3.sse.js';
import { parseTagging } from './s3.tags.js';
import { sameHex, signature, signingKey } from './sigv4.js';
import { xml } from './s3.xml.js';

/** The placeholder of a form's key that S3 replaces by the uploaded file's name. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: S3's own placeholder, not a template.
const FILENAME = '${filename}';
/** The form fields of an SSE-C key. */
const SSE_C = 'x-amz-server-side-encryption-customer-';

/** Form fields that the policy need not name. */
const UNCHECKED = new Set([
  'file',
  'policy',
  'signature',
  'awsaccesskeyid',
  'x-amz-signature',
  'bucket',
]);

/** Fields stored as the object's headers (user metadata and the kept ones). */
const KEPT = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'expires',
  'x-amz-website-redirect-location',
];

interface Form {
  /** Field names lower-cased (S3 matches names without case). */
  fields: Map<string, string>;
  file: { stream: Readable; filename: string } | undefined;
}

/** Reads the form's fields up to its `file` part (S3 ignores what follows it). */
function readForm(c: S3Call): Promise<Form> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    let bb: InstanceType<typeof Busboy>;
    try {
      bb = new Busboy({
        headers: c.req.headers as { 'content-type': string },
        limits: { fieldSize: 20 * 1024, fields: 100, files: 100, parts: 200 },
      });
    } catch {
      reject(s3errors.badRequest('Bucket POST must be of the enclosure-type multipart/form-data'));
      return;
    }
    let done = false;
    const finish = (file: Form['file']) => {
      if (done) return;
      done = true;
      resolve({ fields, file });
    };
    bb.on('field', (name: string, value: string) => fields.set(name.toLowerCase(), value));
    bb.on('file', (name: string, stream: Readable, filename: string) => {
      if (name.toLowerCase() === 'file') {
        finish({ stream, filename });
        return;
      }
      // Clients that send every field as a file part (python-requests' `files=`).
      const parts: Buffer[] = [];
      let n = 0;
      stream.on('data', (chunk: Buffer) => {
        n += chunk.length;
        if (n <= 20 * 1024) parts.push(chunk);
      });
      stream.on('end', () => fields.set(name.toLowerCase(), Buffer.concat(parts).toString('utf8')));
    });
    bb.on('finish', () => finish(undefined));
    bb.on('error', () => reject(s3errors.malformedPostRequest()));
    c.req.on('error', reject);
    continueBody(c);
    c.req.pipe(bb);
  });
}

type Condition =
  | { field: string; op: 'eq' | 'starts-with'; value: string }
  | { range: [number, number] };

/** The policy document's expiry and conditions, checked as S3 reads them. */
function readPolicy(b64: string, nowMs: number): Condition[] {
  let doc: { expiration?: unknown; conditions?: unknown };
  try {
    doc = JSON.parse(Buffer.from(b64, 'base64').toString('utf8'));
  } catch {
    throw s3errors.invalidPolicyDocument('Invalid Policy: Invalid JSON.');
  }
  if (typeof doc.expiration !== 'string')
    throw s3errors.invalidPolicyDocument('Invalid Policy: Policy missing expiration.');
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(doc.expiration))
    throw s3errors.invalidPolicyDocument("Invalid Policy: Invalid 'expiration' value.");
  if (Date.parse(doc.expiration) < nowMs)
    throw s3errors.accessDenied('Invalid according to Policy: Policy expired.');
  if (!Array.isArray(doc.conditions) || doc.conditions.length === 0)
    throw s3errors.invalidPolicyDocument('Invalid Policy: Policy missing conditions.');
  return doc.conditions.map((cond): Condition => {
    if (Array.isArray(cond)) {
      const [op, a, b] = cond as unknown[];
      const name = String(op).toLowerCase();
      if (name === 'content-length-range') {
        if (cond.length !== 3 || typeof a !== 'number' || typeof b !== 'number' || a < 0 || b < a)
          throw s3errors.invalidPolicyDocument('Invalid Policy: Invalid content-length-range.');
        return { range: [a, b] };
      }
      if (
        (name !== 'eq' && name !== 'starts-with') ||
        typeof a !== 'string' ||
        !a.startsWith('$') ||
        typeof b !== 'string'
      )
        throw s3errors.invalidPolicyDocument(
          `Invalid Policy: Invalid condition ${JSON.stringify(cond)}.`,
        );
      return { field: a.slice(1).toLowerCase(), op: name, value: b };
    }
    if (cond && typeof cond === 'object') {
      const entries = Object.entries(cond as Record<string, unknown>);
      const [k, v] = entries[0] ?? [];
      if (entries.length !== 1 || typeof v !== 'string')
        throw s3errors.invalidPolicyDocument(
          `Invalid Policy: Invalid condition ${JSON.stringify(cond)}.`,
        );
      return { field: (k as string).toLowerCase(), op: 'eq', value: v };
    }
    throw s3errors.invalidPolicyDocument('Invalid Policy: Invalid condition.');
  });
}

/**
 * POST Object: a browser's form upload to a bucket (multipart/form-data), as S3 and RGW take it.
 * The form's policy (base64 JSON: an expiration and conditions) is signed with Signature V2
 * (`AWSAccessKeyId`, `signature`) or V4 (`x-amz-credential`, `x-amz-date`, `x-amz-signature`);
 * every condition must hold and every field must be named by one; `content-length-range`
 * bounds the file. Without a policy the upload is anonymous (a public-read-write bucket). The
 * answer is `success_action_redirect` (303), or `success_action_status` 200, 201 (a document) or
 * 204 (the default).
 */
export class S3Post {
  constructor(private readonly e: S3Env & { auth: KeyLookup }) {}

  private async caller(form: Form, nowMs: number, cluster: string): Promise<Caller> {
    const f = form.fields;
    const policy = f.get('policy');
    if (policy === undefined) {
      if (f.has('signature') || f.has('x-amz-signature') || f.has('awsaccesskeyid'))
        throw s3errors.invalidArgument('Bucket POST must contain a field named policy.');
      return ANONYMOUS;
    }
    const v4 = f.get('x-amz-algorithm');
    if (v4 !== undefined) {
      if (v4 !== 'AWS4-HMAC-SHA256')
        throw s3errors.invalidArgument('Only AWS4-HMAC-SHA256 is supported.');
      const cred = (f.get('x-amz-credential') ?? '').split('/');
      const date = f.get('x-amz-date') ?? '';
      const given = f.get('x-amz-signature');
      if (cred.length !== 5 || given === undefined || !date.startsWith(cred[1] ?? '-'))
        throw s3errors.invalidArgument(
          'Bucket POST must contain x-amz-credential, x-amz-date and x-amz-signature.',
        );
      const k = await this.e.auth.key(cred[0] ?? '', cluster);
      const sig = signature(signingKey(k.secret, cred[1] ?? '', cred[2] ?? '', 's3'), policy);
      if (!sameHex(sig, given)) throw s3errors.signatureMismatch();
      return this.callerOf(k, cred[0] ?? '', 'AWS4-HMAC-SHA256', nowMs);
    }
    const accessKey = f.get('awsaccesskeyid');
    const given = f.get('signature');
    if (accessKey === undefined || given === undefined)
      throw s3errors.invalidArgument(
        'Bucket POST must contain a field named AWSAccessKeyId and signature.',
      );
    const k = await this.e.auth.key(accessKey, cluster);
    const sig = createHmac('sha1', k.secret).update(policy).digest('base64');
    if (!sameHex(sig, given)) throw s3errors.signatureMismatch();
    return this.callerOf(k, accessKey, 'AWS', nowMs);
  }

  private callerOf(
    k: Awaited<ReturnType<KeyLookup['key']>>,
    accessKey: string,
    version: 'AWS' | 'AWS4-HMAC-SHA256',
    nowMs: number,
  ): Caller {
    return {
      accountId: k.accountId,
      canonicalId: k.canonicalId,
      accessKey,
      limited: k.limited,
      access: k.access,
      payload: 'UNSIGNED-PAYLOAD',
      signatureVersion: version,
      authType: 'POST',
      signedAtMs: nowMs,
    };
  }

  async upload(c: S3Call, b: BucketRow): Promise<void> {
    const form = await readForm(c);
    const f = form.fields;
    if (!form.file)
      throw s3errors.invalidArgument('POST requires exactly one file upload per request.');
    const keyField = f.get('key');
    if (keyField === undefined)
      throw s3errors.invalidArgument("Bucket POST must contain a field named 'key'.");
    f.set('key', keyField.replaceAll(FILENAME, form.file.filename));
    const key = f.get('key') as string;
    if (key === '' || Buffer.byteLength(key) > 1024 || key.includes('\u0000'))
      throw s3errors.invalidArgument('Invalid key');
    if (f.has('bucket') && f.get('bucket') !== b.label) throw s3errors.accessDenied();
    c.caller = await this.caller(form, c.nowMs, c.cluster);
    let range: [number, number] = [0, MAX_PUT_BYTES];
    const policy = f.get('policy');
    if (policy !== undefined) {
      const conditions = readPolicy(policy, c.nowMs);
      const named = new Set<string>();
      for (const cond of conditions) {
        if ('range' in cond) {
          range = cond.range;
          continue;
        }
        named.add(cond.field);
        const have = cond.field === 'bucket' ? b.label : f.get(cond.field);
        const ok =
          have !== undefined &&
          (cond.op === 'eq' ? have === cond.value : have.startsWith(cond.value));
        if (!ok)
          throw s3errors.accessDenied(
            `Invalid according to Policy: Policy Condition failed: ["${cond.op}", "$${cond.field}", "${cond.value}"]`,
          );
      }
      for (const name of f.keys()) {
        if (UNCHECKED.has(name) || name.startsWith('x-ignore-') || named.has(name)) continue;
        if (['x-amz-credential', 'x-amz-algorithm', 'x-amz-date'].includes(name)) continue;
        throw s3errors.accessDenied(`Invalid according to Policy: Extra input fields: ${name}`);
      }
    }
    checkEncryptionHeaders((name) => f.get(name));
    for (const name of f.keys()) {
      if (
        name === 'x-amz-server-side-encryption' ||
        (name.startsWith('x-amz-server-side-encryption-') && !name.startsWith(SSE_C))
      )
        throw s3errors.headerNotImplemented(
          name,
          'server-side encryption with S3 or KMS managed keys; SSE-C is supported',
        );
    }
    const sseKey = customerKeyOf((name) => f.get(`${SSE_C}${name}`));
    await authorize(
      c,
      {
        action: 's3:PutObject',
        bucket: b,
        key,
        acl: { on: 'bucket', permission: 'WRITE' },
        write: true,
      },
      this.e.accounts,
    );
    const bucketOwner = await this.e.accounts.canonicalId(b.account_id);
    const writerId =
      c.caller.accountId !== null && c.caller.accountId !== b.account_id
        ? c.caller.accountId
        : null;
    const owner = writerId !== null ? (c.caller.canonicalId as string) : bucketOwner;
    const acl = f.get('acl') ?? 'private';
    if (!(CANNED as readonly string[]).includes(acl))
      throw s3errors.invalidArgument(`Unsupported canned ACL ${acl}`);
    const stored = storedAcl(cannedGrants(acl, owner, bucketOwner), owner);
    const tagging = f.get('tagging');
    const tags = tagging !== undefined && tagging !== '' ? parseTagging(tagging, 10) : undefined;
    const metadata: Record<string, string> = {};
    for (const [name, value] of f) {
      if (name.startsWith('x-amz-meta-') || KEPT.includes(name)) metadata[name] = value;
    }
    const blob = await this.e.data.store(form.file.stream, {}, range[1], sseKey);
    if (blob.size < range[0]) {
      await this.e.data.blobs.delete(blob.key);
      throw s3errors.entityTooSmall();
    }
    try {
      await this.e.data.publish(
        b,
        key,
        [{ key: blob.key, size: blob.size }],
        blob.md5,
        {
          contentType: f.get('content-type') ?? 'binary/octet-stream',
          acl: stored.acl,
          grants: stored.grants,
          ownerId: writerId,
          metadata,
          tags: tags && Object.keys(tags).length > 0 ? JSON.stringify(tags) : null,
          ...lockForWrite(c, b),
          sse: sseKey ? sseRecord(sseKey) : null,
        },
        blob.size,
      );
    } catch (err) {
      await this.e.data.blobs.delete(blob.key);
      throw err;
    }
    c.req.resume();
    const etag = quoted(blob.md5);
    const redirect = f.get('success_action_redirect') ?? f.get('redirect');
    if (redirect) {
      const u = new URL(redirect);
      u.searchParams.set('bucket', b.label);
      u.searchParams.set('key', key);
      u.searchParams.set('etag', etag);
      send(c, 303, undefined, {
        location: u.toString().replace(/etag=%22(.*)%22/, 'etag=%22$1%22'),
        etag,
      });
      return;
    }
    const status = f.get('success_action_status');
    const location = `/${b.label}/${encodeURI(key)}`;
    if (status === '201') {
      send(
        c,
        201,
        // Without a namespace, as S3 and RGW write it (clients look up `Key` unqualified).
        xml('PostResponse', { Location: location, Bucket: b.label, Key: key, ETag: etag }, false),
        { etag, location, ...(sseKey ? sseHeaders(sseRecord(sseKey)) : {}) },
      );
      return;
    }
    send(c, status === '200' ? 200 : 204, undefined, {
      etag,
      location,
      ...(sseKey ? sseHeaders(sseRecord(sseKey)) : {}),
    });
  }
}
