import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { s3errors } from './s3.errors.js';

/**
 * Server-side encryption with customer-provided keys (SSE-C), as S3 and Ceph RGW do it: the
 * object's bytes are stored encrypted with the key the client sends (AES-256), which is never
 * stored; the version keeps the key's MD5 to tell a wrong key. Reading (GET, HEAD, a copy's
 * source) needs the same key. Each blob is AES-256-CTR with an IV derived from its (unique)
 * key, so ranges decrypt without reading from the start.
 */

/** What a version records of its customer key. */
export interface SseRecord {
  algorithm: 'AES256';
  /** Base64 MD5 of the key. */
  keyMd5: string;
}

/** A customer key given with a request. */
export interface CustomerKey extends SseRecord {
  key: Buffer;
}

const PREFIX = 'x-amz-server-side-encryption-customer-';
const COPY_PREFIX = 'x-amz-copy-source-server-side-encryption-customer-';

/**
 * The SSE-C key of a request (or of a copy's source, `copySource`), or undefined when none is
 * given. The three headers go together; the algorithm is AES256; the key is 256 bits and its MD5
 * must match.
 */
export function customerKey(req: IncomingMessage, copySource = false): CustomerKey | undefined {
  const p = copySource ? COPY_PREFIX : PREFIX;
  return customerKeyOf((name) => {
    const v = req.headers[`${p}${name}`];
    return typeof v === 'string' ? v : undefined;
  });
}

/**
 * The SSE-C key named by `get` (`algorithm`, `key`, `key-md5`: a request's headers, or a browser
 * upload's form fields). The key's MD5 is required, as S3 and RGW require it.
 */
export function customerKeyOf(get: (name: string) => string | undefined): CustomerKey | undefined {
  const alg = get('algorithm');
  const key = get('key');
  const md5 = get('key-md5');
  if (alg === undefined && key === undefined && md5 === undefined) return undefined;
  if (typeof alg !== 'string' || typeof key !== 'string')
    throw s3errors.invalidArgument(
      'Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm and key.',
    );
  if (alg !== 'AES256')
    throw s3errors.invalidArgument(
      'The encryption algorithm specified is not valid: it must be AES256.',
    );
  const raw = Buffer.from(key, 'base64');
  if (raw.length !== 32 || raw.toString('base64') !== key.trim())
    throw s3errors.invalidArgument('The secret key was invalid for the specified algorithm.');
  const keyMd5 = createHash('md5').update(raw).digest('base64');
  if (md5 === undefined)
    throw s3errors.invalidArgument(
      'Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.',
    );
  if (md5 !== keyMd5)
    throw s3errors.invalidArgument(
      'The calculated MD5 hash of the key did not match the hash that was provided.',
    );
  return { algorithm: 'AES256', keyMd5, key: raw };
}

/** The key a read of a version needs: refused when missing, wrong, or given for a plain one. */
export function keyForRead(
  stored: string | null,
  given: CustomerKey | undefined,
): CustomerKey | undefined {
  if (!stored) {
    if (given)
      throw s3errors.invalidRequest('The encryption parameters are not applicable to this object.');
    return undefined;
  }
  const rec = JSON.parse(stored) as SseRecord;
  if (!given)
    throw s3errors.invalidRequest(
      'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.',
    );
  // Another key than the one the version was written with: RGW's 400 (S3 itself answers 403).
  if (given.keyMd5 !== rec.keyMd5)
    throw s3errors.invalidArgument(
      'The provided encryption key does not match the key the object was stored with.',
    );
  return given;
}

/** The stored record of a key (never the key). */
export function sseRecord(k: CustomerKey): string {
  return JSON.stringify({ algorithm: k.algorithm, keyMd5: k.keyMd5 } satisfies SseRecord);
}

/** The response headers of an SSE-C version. */
export function sseHeaders(stored: string | null): Record<string, string> {
  if (!stored) return {};
  const rec = JSON.parse(stored) as SseRecord;
  return {
    [`${PREFIX}algorithm`]: rec.algorithm,
    [`${PREFIX}key-md5`]: rec.keyMd5,
  };
}

/** The CTR counter block at a byte offset: the blob's IV advanced by whole 16-byte blocks. */
function ivAt(blobKey: string, offset: number): Buffer {
  const iv = createHash('md5').update(`stratus-sse-c:${blobKey}`).digest();
  const counter =
    (BigInt(`0x${iv.toString('hex')}`) + BigInt(Math.floor(offset / 16))) % 2n ** 128n;
  return Buffer.from(counter.toString(16).padStart(32, '0'), 'hex');
}

/** Encrypts a blob's bytes from its start. */
export function encryptor(k: CustomerKey, blobKey: string): Transform {
  return createCipheriv('aes-256-ctr', k.key, ivAt(blobKey, 0));
}

/**
 * Decrypts a blob's bytes read from `alignedStart` (a multiple of 16), dropping the first
 * `skip` bytes of plain text (the range began inside a block).
 */
export function decryptor(k: CustomerKey, blobKey: string, alignedStart: number, skip: number) {
  const decipher = createDecipheriv('aes-256-ctr', k.key, ivAt(blobKey, alignedStart));
  let toSkip = skip;
  const trim = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (toSkip === 0) return cb(null, chunk);
      const n = Math.min(toSkip, chunk.length);
      toSkip -= n;
      cb(null, n === chunk.length ? undefined : chunk.subarray(n));
    },
  });
  decipher.pipe(trim);
  decipher.on('error', (e) => trim.destroy(e));
  return { input: decipher, output: trim };
}
