import type { Database } from '../../db/database.js';
import type { BlobStore } from '../../storage/index.js';
import type { StateHook } from '../../platform/state-hook.js';
import { columnValues } from '../controls/snapshot.js';

/**
 * Uploaded images' bytes and the emulator's state: streamed snapshots carry the blobs the
 * `private_images` rows refer to, and once a reset or an import has committed, the blobs no row
 * refers to any more are removed.
 */
export function imageBlobsStateHook(db: Database, store: BlobStore): StateHook {
  const sweepAfterCommit = async (tx: Database) => {
    // On the process's database (the transaction is over); a failed sweep is retried next time.
    tx.onCommit(async () => {
      await sweepImageBlobs(db, store, Date.now()).catch(() => undefined);
    });
  };
  return {
    name: 'image-blobs',
    onReset: (tx) => sweepAfterCommit(tx),
    importData: (tx) => sweepAfterCommit(tx),
    blobs: {
      area: 'images',
      store,
      keys: (tables) =>
        columnValues(tables, 'private_images', 'blob_key').filter(
          (k): k is string => typeof k === 'string',
        ),
    },
  };
}

/** Removes image blobs older than `olderThanMs` that no image refers to; returns how many. */
export async function sweepImageBlobs(
  db: Database,
  store: BlobStore,
  olderThanMs: number,
): Promise<number> {
  const rows = await db.db.selectFrom('private_images').select('blob_key').execute();
  const used = new Set(rows.map((r) => r.blob_key));
  let n = await store.sweepPartial(olderThanMs);
  for await (const key of store.list()) {
    if (used.has(key)) continue;
    const h = await store.head(key);
    if (h && h.modifiedMs < olderThanMs) {
      await store.delete(key);
      n++;
    }
  }
  return n;
}
