import path from 'node:path';
import type { BlobConfig } from '../config/blob-config.js';
import type { BlobStore } from './blob-store.js';
import { LocalDiskBlobStore } from './local-disk.js';

export type { BlobStore, ByteRange, PutResult } from './blob-store.js';
export { BlobTooLargeError } from './blob-store.js';

/** Makes the blob store of each area (`objects`, `images`, …) on the configured backend. */
export type BlobStores = (area: string) => BlobStore;

/**
 * The blob stores of a process: a local disk under `<dataDir>/<area>` (STRATUS_BLOB_BACKEND=local,
 * the default), or one bucket of an S3-compatible cluster, `<prefix><area>/` in it (=s3). Every
 * area shares one S3 client. The AWS SDK is loaded only for the S3 backend (start-up time).
 */
export async function createBlobStores(
  dataDir: string,
  blob: BlobConfig = { backend: 'local' },
): Promise<BlobStores> {
  if (blob.backend === 'local') return (area) => new LocalDiskBlobStore(path.join(dataDir, area));
  const { S3BlobStore, s3ClientFor } = await import('./s3.js');
  const client = s3ClientFor(blob);
  return (area) => new S3BlobStore(client, blob.bucket, blob.prefix, area);
}
