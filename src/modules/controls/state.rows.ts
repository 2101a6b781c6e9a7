import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { connectMigrated } from '../../db/fresh-image.js';
import { CONTROL_TABLES, TRANSIENT_TABLES } from './controls.table.js';
import { listTables, nonEmptyTables, runStatements, type TableInfo } from './state.tables.js';

/**
 * Rows the start writes from the shipped catalogue (seedCatalogue in
 * src/modules/catalogue/catalogue.repository.ts): reset and import keep them, snapshots leave
 * them out, so the catalogue is the same before and after (clients cache it for minutes).
 * `null`: the whole table; otherwise the condition naming the catalogue's rows.
 */
export const CATALOGUE_ROWS: Readonly<Record<string, RawBuilder<unknown> | null>> = {
  regions: null,
  types: null,
  kernels: null,
  region_availability: null,
  images: sql`account_id is null`,
};

export type Row = Record<string, unknown>;

/** Tables holding the cloud's state (every table but the controls' and the migrations'). */
export function stateTables(tables: TableInfo[]): TableInfo[] {
  return tables.filter((t) => !CONTROL_TABLES.includes(t.name));
}

/** Whether a table has rows a snapshot carries (catalogue-only and transient tables have none). */
export function isExported(t: TableInfo): boolean {
  return !TRANSIENT_TABLES.includes(t.name) && CATALOGUE_ROWS[t.name] !== null;
}

// biome-ignore lint/suspicious/noExplicitAny: tables are named at run time here.
export const anyDb = (db: Database) => db.db as unknown as Kysely<any>;

/** The condition selecting a table's non-catalogue rows (undefined: every row). */
function stateRows(t: TableInfo): RawBuilder<unknown> | undefined {
  const c = CATALOGUE_ROWS[t.name];
  return c ? sql`not (${c})` : undefined;
}

/** Deletes every non-catalogue row of the given tables, children first. */
export async function clearTables(tx: Database, tables: TableInfo[]): Promise<void> {
  await tx.deferForeignKeys();
  const holding = await nonEmptyTables(tx, tables);
  const deletes: RawBuilder<unknown>[] = [];
  for (const t of [...tables].reverse()) {
    if (CATALOGUE_ROWS[t.name] === null || !holding.has(t.name)) continue;
    const where = stateRows(t);
    deletes.push(sql`delete from ${sql.id(t.name)}${where ? sql` where ${where}` : sql``}`);
  }
  await runStatements(tx, deletes);
}

/** A table's non-catalogue rows, in primary-key-ish order (first column). */
export async function readRows(db: Database, t: TableInfo): Promise<unknown[][]> {
  const where = stateRows(t);
  const cols = t.columns.map((c) => sql.id(c));
  const { rows } = await sql<Row>`select ${sql.join(cols)} from ${sql.id(t.name)}${
    where ? sql` where ${where}` : sql``
  } order by ${sql.join(cols.slice(0, 1))}`.execute(db.db);
  return rows.map((r) => t.columns.map((c) => normalise(r[c])));
}

function normalise(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (Buffer.isBuffer(v)) return { $base64: v.toString('base64') };
  return v;
}

function denormalise(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && '$base64' in (v as Record<string, unknown>)) {
    return Buffer.from(String((v as { $base64: unknown }).$base64), 'base64');
  }
  return v;
}

/** Inserts rows (arrays aligned with `columns`) in batches within the engines' parameter limits. */
export async function insertRows(
  tx: Database,
  table: string,
  columns: string[],
  rows: unknown[][],
): Promise<void> {
  if (rows.length === 0 || columns.length === 0) return;
  const per = Math.max(1, Math.floor(30_000 / columns.length));
  for (let i = 0; i < rows.length; i += Math.min(per, 500)) {
    const batch = rows.slice(i, i + Math.min(per, 500)).map((r) => {
      const o: Row = {};
      columns.forEach((c, j) => {
        o[c] = denormalise(r[j]);
      });
      return o;
    });
    await anyDb(tx).insertInto(table).values(batch).execute();
  }
}

/**
 * The rows a new database holds after its migrations (static rows a migration inserts), by
 * table: what a reset puts back. Read from a fresh in-memory SQLite database.
 */
export async function migrationBaseline(): Promise<
  Map<string, { columns: string[]; rows: unknown[][] }>
> {
  const db = await connectMigrated('sqlite::memory:');
  try {
    const out = new Map<string, { columns: string[]; rows: unknown[][] }>();
    for (const t of stateTables(await listTables(db))) {
      if (!isExported(t)) continue;
      const rows = await readRows(db, t);
      if (rows.length > 0) out.set(t.name, { columns: t.columns, rows });
    }
    return out;
  } finally {
    await db.close();
  }
}

/**
 * The condition selecting the rows of `t` that belong to an account: its `account_id`, or a
 * reference to a parent row that belongs to it (entity grants through their user, …).
 * Undefined when the table does not belong to accounts (the catalogue, jobs of no account).
 * `account`: the account's id, as a parameter (`sql.val`) or a literal (`sql.lit`).
 */
export function belongsTo(
  t: TableInfo,
  byName: Map<string, TableInfo>,
  account: RawBuilder<unknown>,
  depth = 0,
): RawBuilder<unknown> | undefined {
  if (t.hasAccountId) return sql`account_id = ${account}`;
  if (depth >= 4) return undefined;
  const parts: RawBuilder<unknown>[] = [];
  for (const r of t.refs) {
    const parent = byName.get(r.parent);
    if (!parent || parent.name === t.name) continue;
    const cond = belongsTo(parent, byName, account, depth + 1);
    if (cond) {
      parts.push(
        sql`${sql.id(r.column)} in (select ${sql.id(r.parentColumn)} from ${sql.id(
          parent.name,
        )} where ${cond})`,
      );
    }
  }
  return parts.length === 0 ? undefined : sql`(${sql.join(parts, sql` or `)})`;
}
