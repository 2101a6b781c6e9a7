import type { Database } from '../db/database.js';
import type { DatabaseSchema } from '../db/schema.js';
import { columnValues, type StateHook } from './state-hook.js';
import type { BlobStore } from '../storage/index.js';

/** The tables whose rows name a blob in a `blob_key` column. */
export type BlobKeyTable = {
  [T in keyof DatabaseSchema]: 'blob_key' extends keyof DatabaseSchema[T] ? T : never;
}[keyof DatabaseSchema];

/** An area's blobs as its rows refer to them: which store, and which table names them. */
export interface BlobRefs {
  /** The state hook's name (`image-blobs`). */
  name: string;
  /** The blob store's area (`images`), as snapshots name it. */
  area: string;
  /** The table whose `blob_key` column names the blobs. */
  table: BlobKeyTable;
}

/**
 * An area's bytes and the emulator's state: streamed snapshots carry the blobs the table's rows
 * refer to, and once a reset or an import has committed, the blobs no row refers to any more are
 * removed.
 */
export function blobRefsStateHook(db: Database, store: BlobStore, refs: BlobRefs): StateHook {
  const sweepAfterCommit = async (tx: Database) => {
    // On the process's database (the transaction is over); a failed sweep is retried next time.
    tx.onCommit(async () => {
      await sweepUnreferencedBlobs(db, store, refs.table, Date.now()).catch(() => undefined);
    });
  };
  return {
    name: refs.name,
    onReset: (tx) => sweepAfterCommit(tx),
    importData: (tx) => sweepAfterCommit(tx),
    blobs: {
      area: refs.area,
      store,
      keys: (tables) =>
        columnValues(tables, refs.table, 'blob_key').filter(
          (k): k is string => typeof k === 'string',
        ),
    },
  };
}

/** Removes blobs older than `olderThanMs` that no row of `table` refers to; returns how many. */
export async function sweepUnreferencedBlobs(
  db: Database,
  store: BlobStore,
  table: BlobKeyTable,
  olderThanMs: number,
): Promise<number> {
  // Every BlobKeyTable has a `blob_key` column; Kysely cannot see that through the union.
  const rows = (await db.db
    .selectFrom(table as 'private_images')
    .select('blob_key')
    .execute()) as { blob_key: string | null }[];
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
