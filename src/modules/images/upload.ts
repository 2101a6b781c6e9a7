import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ApiError } from '../../errors/api-error.js';
import { errors } from '../../errors/errors.js';
import type { BlobStore } from '../../storage/index.js';

/** Largest compressed upload (reference: 5 GB). */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;
/**
 * Largest raw image once inflated. @NOTE The reference bounds only the compressed file; a gzip
 * bomb of a few MB would otherwise inflate without end (CPU, and an image size nobody can
 * deploy), so the same 5 GB bounds the image itself.
 */
export const MAX_IMAGE_BYTES = 5 * 1024 ** 3;

export const imageTooLarge = (max: number) =>
  errors.reason(
    `The image is larger than ${max / 1024 ** 3 >= 1 ? `${max / 1024 ** 3} GB` : `${max} bytes`} once decompressed.`,
  );

export const NOT_GZIP = 'The image data must be a gzip-compressed raw disk image.';

/**
 * Streams an upload into a new blob of the blob store (the same storage as object data) while
 * inflating a copy of it, to check that it is gzip and to learn the raw image's size. Nothing is
 * buffered beyond the streams' own windows. The upload stops as soon as the compressed bytes pass
 * `maxBytes` or the inflated ones pass `maxRawBytes`. On any failure the blob is removed and a
 * 4xx is thrown.
 */
export async function receiveImage(
  store: BlobStore,
  key: string,
  body: Readable,
  maxBytes = MAX_UPLOAD_BYTES,
  maxRawBytes = MAX_IMAGE_BYTES,
): Promise<{ rawBytes: number; storedBytes: number }> {
  let raw = 0;
  let compressed = 0;
  let problem: ApiError | undefined;
  const gunzip = createGunzip();
  gunzip.on('data', (c: Buffer) => {
    raw += c.length;
    if (raw > maxRawBytes && !problem) {
      problem = imageTooLarge(maxRawBytes);
      gunzip.destroy();
      inspect.destroy(problem);
    }
  });
  const inflated = new Promise<void>((resolve) => {
    gunzip.on('end', () => resolve());
    gunzip.on('close', () => resolve());
    gunzip.on('error', () => {
      problem ??= errors.reason(NOT_GZIP);
      resolve();
    });
  });
  const inspect = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      compressed += chunk.length;
      if (compressed > maxBytes) {
        problem ??= errors.payloadTooLarge();
        cb(problem);
        return;
      }
      if (problem || gunzip.destroyed) {
        cb(problem ?? null, chunk);
        return;
      }
      if (gunzip.write(chunk)) cb(null, chunk);
      else gunzip.once('drain', () => cb(null, chunk));
    },
    flush(cb) {
      gunzip.end();
      cb();
    },
  });
  // A gzip error stops the upload early rather than storing the rest of a bad body.
  gunzip.on('error', () => inspect.destroy(problem));
  body.on('error', (err) => inspect.destroy(err));

  let stored = 0;
  try {
    stored = (await store.put(key, body.pipe(inspect))).size;
  } catch (err) {
    body.resume();
    await store.delete(key);
    if (problem) throw problem;
    if (err instanceof ApiError) throw err;
    throw errors.reason(NOT_GZIP);
  }
  await inflated;
  // A valid gzip of an empty file is an image (the provider's own SDK suite uploads one and the
  // real service takes it); only a body with no bytes at all is refused.
  if (!problem && compressed === 0) problem = errors.reason(NOT_GZIP);
  if (problem) {
    await store.delete(key);
    throw problem;
  }
  return { rawBytes: raw, storedBytes: stored };
}
