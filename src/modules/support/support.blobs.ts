import type { Database } from '../../db/database.js';
import { blobRefsStateHook } from '../../platform/blob-refs.js';
import type { StateHook } from '../../platform/state-hook.js';
import type { BlobStore } from '../../storage/index.js';

/** Ticket attachments' bytes, carried by snapshots and swept after resets and imports. */
export function ticketBlobsStateHook(db: Database, store: BlobStore): StateHook {
  return blobRefsStateHook(db, store, {
    name: 'ticket-blobs',
    area: 'tickets',
    table: 'support_ticket_attachments',
  });
}
