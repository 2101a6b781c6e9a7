import { sql } from 'kysely';
import type { Database } from '../../db/database.js';

/** A table as the database describes it (never a hand-written list: areas add tables). */
export interface TableInfo {
  name: string;
  columns: string[];
  hasAccountId: boolean;
  /** The column fed by a sequence (PostgreSQL serial/identity, SQLite AUTOINCREMENT). */
  serial: string | undefined;
  /** Single-column foreign keys: this table's column → the parent table and column. */
  refs: { column: string; parent: string; parentColumn: string }[];
}

const q = (name: string) => sql.id(name);

async function sqliteTables(db: Database): Promise<TableInfo[]> {
  const { rows } = await sql<{ name: string; sql: string | null }>`
    select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%'
    order by name`.execute(db.db);
  const out: TableInfo[] = [];
  for (const t of rows) {
    const cols = await sql<{ name: string; pk: number }>`
      select name, pk from pragma_table_info(${t.name}) order by cid`.execute(db.db);
    const fks = await sql<{ table: string; from: string; to: string | null }>`
      select "table", "from", "to" from pragma_foreign_key_list(${t.name})`.execute(db.db);
    const pk = cols.rows.filter((c) => c.pk > 0);
    const auto = /autoincrement/i.test(t.sql ?? '') && pk.length === 1;
    out.push({
      name: t.name,
      columns: cols.rows.map((c) => c.name),
      hasAccountId: cols.rows.some((c) => c.name === 'account_id'),
      serial: auto ? pk[0]?.name : undefined,
      refs: fks.rows.map((f) => ({ column: f.from, parent: f.table, parentColumn: f.to ?? 'id' })),
    });
  }
  return out;
}

async function postgresTables(db: Database): Promise<TableInfo[]> {
  const cols = await sql<{ table: string; column: string; serial: boolean }>`
    select table_name as "table", column_name as "column",
      (coalesce(column_default, '') like 'nextval(%' or is_identity = 'YES') as serial
    from information_schema.columns c
    where table_schema = current_schema()
      and exists (select 1 from information_schema.tables t where t.table_schema = c.table_schema
        and t.table_name = c.table_name and t.table_type = 'BASE TABLE')
    order by table_name, ordinal_position`.execute(db.db);
  const fks = await sql<{ child: string; column: string; parent: string; parent_column: string }>`
    select cr.relname as child, a.attname as "column", pr.relname as parent,
      af.attname as parent_column
    from pg_constraint c
    join pg_class cr on cr.oid = c.conrelid
    join pg_class pr on pr.oid = c.confrelid
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    join pg_attribute af on af.attrelid = c.confrelid and af.attnum = c.confkey[1]
    where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
      and array_length(c.conkey, 1) = 1`.execute(db.db);
  const byName = new Map<string, TableInfo>();
  for (const c of cols.rows) {
    let t = byName.get(c.table);
    if (!t) {
      t = { name: c.table, columns: [], hasAccountId: false, serial: undefined, refs: [] };
      byName.set(c.table, t);
    }
    t.columns.push(c.column);
    if (c.column === 'account_id') t.hasAccountId = true;
    if (c.serial && t.serial === undefined) t.serial = c.column;
  }
  for (const f of fks.rows) {
    byName
      .get(f.child)
      ?.refs.push({ column: f.column, parent: f.parent, parentColumn: f.parent_column });
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Every table of the database, parents before the tables that reference them. */
export async function listTables(db: Database): Promise<TableInfo[]> {
  const tables = db.dialect === 'postgres' ? await postgresTables(db) : await sqliteTables(db);
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: TableInfo[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: TableInfo) => {
    if (state.get(t.name)) return; // done, or a cycle (self-reference): order by name there
    state.set(t.name, 'visiting');
    for (const r of t.refs) {
      const parent = byName.get(r.parent);
      if (parent && parent.name !== t.name) visit(parent);
    }
    state.set(t.name, 'done');
    ordered.push(t);
  };
  for (const t of tables) visit(t);
  return ordered;
}

/** The current value of each table's sequence (the highest id ever handed out). */
export async function readSequences(
  db: Database,
  tables: TableInfo[],
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (db.dialect === 'sqlite') {
    const has = await sql<{ n: number }>`
      select count(*) as n from sqlite_master where name = 'sqlite_sequence'`.execute(db.db);
    if (Number(has.rows[0]?.n ?? 0) === 0) return out;
    const { rows } = await sql<{ name: string; seq: number }>`
      select name, seq from sqlite_sequence`.execute(db.db);
    const wanted = new Set(tables.map((t) => t.name));
    for (const r of rows) if (wanted.has(r.name)) out[r.name] = Number(r.seq);
    return out;
  }
  for (const t of tables) {
    if (!t.serial) continue;
    // Null until the sequence was first used.
    const { rows } = await sql<{ v: number | null }>`
      select pg_sequence_last_value(pg_get_serial_sequence(${t.name}, ${t.serial})::regclass) as v
    `.execute(db.db);
    out[t.name] = Number(rows[0]?.v ?? 0);
  }
  return out;
}

/**
 * Sets each table's sequence so the next id is above both `floor` (a snapshot's sequence, to
 * never hand out an id again) and the highest id present. Tables absent from `floor` restart
 * from their highest id (1 on an empty table).
 */
export async function restoreSequences(
  db: Database,
  tables: TableInfo[],
  floor: Record<string, number>,
): Promise<void> {
  for (const t of tables) {
    if (!t.serial) continue;
    const max = await sql<{ m: number | null }>`
      select max(${q(t.serial)}) as m from ${q(t.name)}`.execute(db.db);
    const value = Math.max(Number(max.rows[0]?.m ?? 0), Number(floor[t.name] ?? 0));
    if (db.dialect === 'postgres') {
      await sql`select setval(pg_get_serial_sequence(${t.name}, ${t.serial}), ${
        value > 0 ? value : 1
      }, ${value > 0})`.execute(db.db);
    } else {
      await sql`delete from sqlite_sequence where name = ${t.name}`.execute(db.db);
      if (value > 0) {
        await sql`insert into sqlite_sequence (name, seq) values (${t.name}, ${value})`.execute(
          db.db,
        );
      }
    }
  }
}
