import type { Database } from '../../db/database.js';
import type { StateHook } from '../../platform/state-hook.js';
import type { BlobStore } from '../../storage/index.js';
import { columnValues } from '../controls/snapshot.js';

/**
 * Ticket attachments' bytes and the emulator's state: streamed snapshots carry the blobs the
 * `support_ticket_attachments` rows refer to, and once a reset or an import has committed, the
 * blobs no row refers to any more are removed.
 */
export function ticketBlobsStateHook(db: Database, store: BlobStore): StateHook {
  const sweepAfterCommit = async (tx: Database) => {
    // On the process's database (the transaction is over); a failed sweep is retried next time.
    tx.onCommit(async () => {
      await sweepTicketBlobs(db, store, Date.now()).catch(() => undefined);
    });
  };
  return {
    name: 'ticket-blobs',
    onReset: (tx) => sweepAfterCommit(tx),
    importData: (tx) => sweepAfterCommit(tx),
    blobs: {
      area: 'tickets',
      store,
      keys: (tables) =>
        columnValues(tables, 'support_ticket_attachments', 'blob_key').filter(
          (k): k is string => typeof k === 'string',
        ),
    },
  };
}

/** Removes attachment blobs older than `olderThanMs` that no row refers to; returns how many. */
export async function sweepTicketBlobs(
  db: Database,
  store: BlobStore,
  olderThanMs: number,
): Promise<number> {
  const rows = await db.db.selectFrom('support_ticket_attachments').select('blob_key').execute();
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
