import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import { type Database, DatabaseSlot } from '../../db/database.js';

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

/**
 * Tables read before, by the schema's signature. Reading them costs two queries a table on
 * SQLite (about 100 tables: most of a reset's time) and a catalogue scan on PostgreSQL; the
 * schema changes only with migrations, which the signature sees.
 */
const KNOWN = new DatabaseSlot<Map<string, TableInfo[]>>('state-tables');

/**
 * A cheap signature of the schema: SQLite's schema version (bumped by every change of the
 * schema) or PostgreSQL's counts of the schema's tables and columns, with the migrations applied,
 * on both.
 */
async function schemaSignature(db: Database): Promise<string> {
  const { rows } =
    db.dialect === 'postgres'
      ? await sql<{ s: string }>`
          select concat_ws(':', 'pg', current_database(), current_schema(),
            (select count(*) from pg_class
              where relnamespace = current_schema()::regnamespace and relkind = 'r'),
            (select count(*) from pg_attribute a join pg_class c on c.oid = a.attrelid
              where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
                and a.attnum > 0 and not a.attisdropped),
            (select count(*) || max(name) from stratus_migrations)) as s`.execute(db.db)
      : await sql<{ s: string }>`
          select 'sqlite:' || (select schema_version from pragma_schema_version) || ':' ||
            (select count(*) || ':' || max(name) from stratus_migrations) as s`.execute(db.db);
  return String(rows[0]?.s ?? '');
}

/** Every table of the database, parents before the tables that reference them. */
export async function listTables(db: Database): Promise<TableInfo[]> {
  const sig = await schemaSignature(db);
  // Per connection: two in-memory databases may reach the same schema version by other changes.
  const known = db.slot(KNOWN, () => new Map<string, TableInfo[]>());
  const hit = known.get(sig);
  if (hit) return hit;
  const tables = await readTables(db);
  if (known.size > 64) known.clear();
  known.set(sig, tables);
  return tables;
}

/** Every table of the database as it describes itself now, parents first. */
async function readTables(db: Database): Promise<TableInfo[]> {
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
  // One query: the sequences' last values (null until first used).
  const serial = tables.filter((t) => t.serial);
  const rows = await unionAll<{ n: number; v: number | string | null }>(
    db,
    serial,
    (t, i) => sql`select ${sql.lit(i)} as n, ${lastValue(t)} as v`,
  );
  for (const r of rows) {
    const t = serial[Number(r.n)];
    if (t) out[t.name] = Number(r.v ?? 0);
  }
  return out;
}

/**
 * PostgreSQL: the last value a table's sequence handed out, or null while it is at its start
 * (never used, or set back with `is_called` false). The names are the catalogue's, as literals:
 * the statement has no parameters, so each connection keeps its plan.
 */
function lastValue(t: TableInfo): RawBuilder<unknown> {
  return sql`pg_sequence_last_value(pg_get_serial_sequence(${sql.lit(t.name)}, ${sql.lit(
    t.serial as string,
  )})::regclass)`;
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
  const serial = tables.filter((t) => t.serial);
  if (serial.length === 0) return;
  // Every table's highest id in one query; the sequences set in one or two statements.
  const pg = db.dialect === 'postgres';
  const highest = new Map<string, number>();
  const last = new Map<string, number | null>();
  const rows = await unionAll<{ n: number; m: number | string | null; v?: number | string | null }>(
    db,
    serial,
    (t, i) =>
      sql`select ${sql.lit(i)} as n, (select max(${q(t.serial as string)}) from ${q(
        t.name,
      )}) as m${pg ? sql`, ${lastValue(t)} as v` : sql``}`,
  );
  for (const r of rows) {
    const t = serial[Number(r.n)];
    if (!t) continue;
    highest.set(t.name, Number(r.m ?? 0));
    last.set(t.name, r.v === null || r.v === undefined ? null : Number(r.v));
  }
  const values = serial.map((t) => ({
    t,
    value: Math.max(highest.get(t.name) ?? 0, Number(floor[t.name] ?? 0)),
  }));
  if (pg) {
    // Only the sequences not already where they belong: after a test, most were never used.
    // A sequence at its start (null) is taken to start at 1, as every sequence here does.
    const moved = values.filter(({ t, value }) => {
      const v = last.get(t.name) ?? null;
      return value > 0 ? v !== value : v !== null;
    });
    if (moved.length === 0) return;
    await sql`select ${sql.join(
      moved.map(
        ({ t, value }) =>
          sql`setval(pg_get_serial_sequence(${t.name}, ${t.serial}), ${value > 0 ? value : 1}, ${
            value > 0
          })`,
      ),
    )}`.execute(db.db);
    return;
  }
  await sql`delete from sqlite_sequence where name in (${sql.join(serial.map((t) => t.name))})`.execute(
    db.db,
  );
  const set = values.filter((v) => v.value > 0);
  if (set.length > 0)
    await sql`insert into sqlite_sequence (name, seq) values ${sql.join(
      set.map(({ t, value }) => sql`(${t.name}, ${value})`),
    )}`.execute(db.db);
}

/**
 * The tables that hold at least one row, found in one query (a reset then deletes from those
 * alone: after a test, most of the hundred tables are empty).
 */
export async function nonEmptyTables(db: Database, tables: TableInfo[]): Promise<Set<string>> {
  // Labelled by position: no parameters, so a PostgreSQL connection keeps the statement's plan
  // (planning a hundred tables' scans took longer than running them).
  const rows = await unionAll<{ n: number }>(
    db,
    tables,
    (t, i) => sql`select ${sql.lit(i)} as n where exists (select 1 from ${q(t.name)})`,
  );
  return new Set(rows.flatMap((r) => tables[Number(r.n)]?.name ?? []));
}

/**
 * Runs statements without parameters (names from the catalogue, integers this code made, never
 * text from a request). PostgreSQL: as one text through the simple query protocol, one round
 * trip for all; SQLite (in process: no round trips) one by one.
 */
export async function runStatements(
  db: Database,
  statements: RawBuilder<unknown>[],
): Promise<void> {
  if (statements.length === 0) return;
  if (db.dialect !== 'postgres') {
    for (const s of statements) await s.execute(db.db);
    return;
  }
  const texts = statements.map((s) => {
    const c = s.compile(db.db);
    if (c.parameters.length > 0) throw new Error(`runStatements: parameters in ${c.sql}`);
    return c.sql;
  });
  await db.db.executeQuery(CompiledQuery.raw(texts.join(';\n')));
}

/**
 * One probe a table, run as `union all` queries of at most 200 probes (under SQLite's limit of
 * compound terms): the rows of every probe.
 */
async function unionAll<R>(
  db: Database,
  tables: TableInfo[],
  probe: (t: TableInfo, i: number) => RawBuilder<unknown>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < tables.length; i += 200) {
    const probes = tables.slice(i, i + 200).map((t, j) => probe(t, i + j));
    const { rows } = await sql<R>`${sql.join(probes, sql` union all `)}`.execute(db.db);
    out.push(...rows);
  }
  return out;
}
