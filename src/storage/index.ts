import path from 'node:path';
import type { BlobConfig } from '../config/blob-config.js';
import type { BlobStore } from './blob-store.js';
import { LocalDiskBlobStore } from './local-disk.js';
import { S3BlobStore, s3ClientFor } from './s3.js';

export type { BlobStore, ByteRange, PutResult } from './blob-store.js';
export { BlobTooLargeError } from './blob-store.js';

/** Makes the blob store of each area (`objects`, `images`, …) on the configured backend. */
export type BlobStores = (area: string) => BlobStore;

/**
 * The blob stores of a process: a local disk under `<dataDir>/<area>` (STRATUS_BLOB_BACKEND=local,
 * the default), or one bucket of an S3-compatible cluster, `<prefix><area>/` in it (=s3). Every
 * area shares one S3 client.
 */
export function createBlobStores(
  dataDir: string,
  blob: BlobConfig = { backend: 'local' },
): BlobStores {
  if (blob.backend === 'local') return (area) => new LocalDiskBlobStore(path.join(dataDir, area));
  const client = s3ClientFor(blob);
  return (area) => new S3BlobStore(client, blob.bucket, blob.prefix, area);
}

/** One area's blob store on the configured backend. */
export function createBlobStore(dataDir: string, area: string, blob?: BlobConfig): BlobStore {
  return createBlobStores(dataDir, blob)(area);
}
