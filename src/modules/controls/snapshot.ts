import { errors } from '../../errors/errors.js';
import { columnValues, type SnapshotTables } from '../../platform/state-hook.js';
import type { TableInfo } from './state.tables.js';

export { columnValues };
export type { SnapshotTables };

export const SNAPSHOT_FORMAT = 'stratus-snapshot';
/**
 * The snapshot format this server writes; it reads this one and older ones. 1: one JSON document
 * (rows only). 2: the same document, then (in the NDJSON form) the bytes the rows refer to.
 */
export const SNAPSHOT_VERSION = 2;

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  /** The Stratus version that wrote it. */
  stratus: string;
  created: string;
  /** The engine it was read from (informative: snapshots move between engines). */
  dialect: string;
  /** The migrations applied to the database it was read from. */
  migrations: string[];
  /** Every state table's rows, as arrays aligned with `columns`. */
  tables: SnapshotTables;
  /** The highest id each table ever handed out (ids are never reused after an import). */
  sequences: Record<string, number>;
  /** Data kept outside the database, by owner (StateHook.exportData). */
  extensions: Record<string, unknown>;
  /**
   * Version 2: `follow` when blob records follow the document (the NDJSON form), `omitted` when
   * the document was exported without bytes. Absent in version 1 (no bytes).
   */
  blobs?: 'follow' | 'omitted';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a snapshot before anything is deleted: its format and version, that this server knows
 * every migration and table it names (a newer server's snapshot is refused, never half-read),
 * and the shape of every table.
 */
export function checkSnapshot(input: unknown, known: string[], tables: TableInfo[]): Snapshot {
  if (!isObject(input) || input.format !== SNAPSHOT_FORMAT) {
    throw errors.invalidField(
      'format',
      `Not a Stratus snapshot (expected format "${SNAPSHOT_FORMAT}").`,
    );
  }
  const version = input.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw errors.invalidField('version', 'The snapshot has no valid format version.');
  }
  if (version > SNAPSHOT_VERSION) {
    throw errors.invalidField(
      'version',
      `This snapshot was written by a newer Stratus (${String(input.stratus ?? 'unknown')}, ` +
        `snapshot format ${version}); this server reads formats up to ${SNAPSHOT_VERSION}. ` +
        'Upgrade Stratus to import it.',
    );
  }
  const migrations = Array.isArray(input.migrations) ? input.migrations.map(String) : [];
  const unknown = migrations.filter((m) => !known.includes(m));
  if (unknown.length > 0) {
    throw errors.invalidField(
      'migrations',
      `This snapshot was written by a newer Stratus: its database has migrations this server ` +
        `does not know (${unknown.join(', ')}). Upgrade Stratus to import it.`,
    );
  }
  if (!isObject(input.tables)) throw errors.invalidField('tables', 'Must be an object.');
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const [name, data] of Object.entries(input.tables)) {
    const t = byName.get(name);
    if (!t) throw errors.invalidField(`tables.${name}`, 'No such table on this server.');
    if (!isObject(data) || !Array.isArray(data.columns) || !Array.isArray(data.rows)) {
      throw errors.invalidField(`tables.${name}`, 'Must have "columns" and "rows" arrays.');
    }
    for (const c of data.columns) {
      if (typeof c !== 'string' || !t.columns.includes(c)) {
        throw errors.invalidField(
          `tables.${name}.columns`,
          `No column ${String(c)} on this server.`,
        );
      }
    }
    for (const r of data.rows) {
      if (!Array.isArray(r) || r.length !== data.columns.length) {
        throw errors.invalidField(
          `tables.${name}.rows`,
          'Every row must have one value per column.',
        );
      }
    }
  }
  const sequences = isObject(input.sequences) ? input.sequences : {};
  for (const [k, v] of Object.entries(sequences)) {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw errors.invalidField(`sequences.${k}`, 'Must be a number.');
    }
  }
  return {
    ...(input as unknown as Snapshot),
    sequences: sequences as Record<string, number>,
    extensions: isObject(input.extensions) ? input.extensions : {},
  };
}
