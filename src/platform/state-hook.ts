import type { Database } from '../db/database.js';
import type { BlobStore } from '../storage/index.js';

/** The rows of a snapshot, by table (src/modules/controls/snapshot.ts). */
export type SnapshotTables = Record<string, { columns: string[]; rows: unknown[][] }>;

/** Every value of one column of a snapshot's table (none when the table or column is absent). */
export function columnValues(tables: SnapshotTables, table: string, column: string): unknown[] {
  const t = tables[table];
  const i = t?.columns.indexOf(column) ?? -1;
  return t && i >= 0 ? t.rows.map((r) => r[i]) : [];
}

/**
 * State that lives outside the database (object data on disk, later): each owner declares a hook
 * in its area module (`stateHooks`), and reset and import call it inside their transaction. Work on
 * files belongs in `tx.onCommit`, so a rolled-back reset leaves them alone.
 */
export interface StateHook {
  name: string;
  /** After the rows of the scope were deleted (every account when accountId is undefined). */
  onReset?(tx: Database, scope: { accountId?: number }): Promise<void>;
  /** Extra data carried in the snapshot under `extensions[name]`. */
  exportData?(db: Database): Promise<unknown>;
  /** After a snapshot's rows were written; `data` is its `extensions[name]` (or undefined). */
  importData?(tx: Database, data: unknown): Promise<void>;
  /**
   * Bytes the rows refer to, carried by streamed snapshots (snapshot-stream.ts): the area's
   * name, its blob store, and the keys a snapshot's rows use.
   */
  blobs?: { area: string; store: BlobStore; keys(tables: SnapshotTables): string[] };
}
