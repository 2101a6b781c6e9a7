import type { Database } from '../../db/database.js';
import { blobRefsStateHook } from '../../platform/blob-refs.js';
import type { StateHook } from '../../platform/state-hook.js';
import type { BlobStore } from '../../storage/index.js';

/** Uploaded images' bytes, carried by snapshots and swept after resets and imports. */
export function imageBlobsStateHook(db: Database, store: BlobStore): StateHook {
  return blobRefsStateHook(db, store, {
    name: 'image-blobs',
    area: 'images',
    table: 'private_images',
  });
}
