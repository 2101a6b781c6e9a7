import path from 'node:path';
import type { BlobStore } from './blob-store.js';
import { LocalDiskBlobStore } from './local-disk.js';

export type { BlobStore, ByteRange, PutResult } from './blob-store.js';
export { BlobTooLargeError } from './blob-store.js';

/**
 * The blob store of a process: a local disk under `<dataDir>/<area>`. A backend on an external
 * S3-compatible cluster would be selected here from configuration (endpoint, bucket, keys).
 */
export function createBlobStore(dataDir: string, area: string): BlobStore {
  return new LocalDiskBlobStore(path.join(dataDir, area));
}
