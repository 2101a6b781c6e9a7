import { createHash } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';

/** What a completed write reports: its length and digests, computed while the bytes streamed. */
export interface PutResult {
  size: number;
  /** MD5 of the bytes, hex (an S3 ETag for single-part objects). */
  md5: string;
  /** SHA-256 of the bytes, hex (checked against `x-amz-content-sha256`). */
  sha256: string;
}

/** An inclusive byte range, as HTTP ranges are written. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Immutable blobs under opaque keys. Writers always use a fresh key (`newKey`) and publish it in
 * the database after `put` resolves, so a reader never sees a half-written blob, and a crash
 * leaves at most an unreferenced one. Implementations stream: no method holds a whole blob.
 *
 * `LocalDiskBlobStore` keeps blobs on a local disk. An operator who keeps bytes on an external
 * S3-compatible cluster gets an implementation of this same interface (PutObject with the stream
 * and its length, GetObject with `Range`, HeadObject, DeleteObject, ListObjectsV2 by prefix),
 * chosen in `createBlobStore` from configuration; nothing else changes.
 */
export interface BlobStore {
  newKey(): string;
  /**
   * Streams `body` into a new blob. Rejects (and leaves nothing behind) if the stream errors or
   * `maxBytes` is exceeded.
   */
  put(key: string, body: Readable, opts?: { maxBytes?: number }): Promise<PutResult>;
  /** The blob's bytes, or a range of them. Rejects with code `ENOENT` if it does not exist. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size and last-modified time (epoch ms), or null when the blob does not exist. */
  head(key: string): Promise<{ size: number; modifiedMs: number } | null>;
  /** Removes a blob; removing a missing blob is not an error. */
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix` (maintenance: orphan sweeps). */
  list(prefix?: string): AsyncIterable<string>;
  /** Removes what interrupted writes left behind, older than `olderThanMs`; returns how many. */
  sweepPartial(olderThanMs: number): Promise<number>;
}

export class BlobTooLargeError extends Error {
  override name = 'BlobTooLargeError';
}

/**
 * The pass-through every store writes through: counts the bytes, refuses past `maxBytes`
 * (`BlobTooLargeError`), and computes the digests of the `PutResult` as the bytes stream.
 * `result()` is read once the stream has ended.
 */
export function meter(maxBytes = Number.POSITIVE_INFINITY): {
  stream: Transform;
  result: () => PutResult;
} {
  const md5 = createHash('md5');
  const sha = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) return cb(new BlobTooLargeError('blob too large'));
      md5.update(chunk);
      sha.update(chunk);
      cb(null, chunk);
    },
  });
  return { stream, result: () => ({ size, md5: md5.digest('hex'), sha256: sha.digest('hex') }) };
}
