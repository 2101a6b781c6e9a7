import { type SelectQueryBuilder, sql } from 'kysely';
import { type Database, DatabaseSlot } from '../db/database.js';
import type { CompiledFilter } from './filter.js';

export const PAGE_SIZE_MIN = 25;
export const PAGE_SIZE_MAX = 500;
export const PAGE_SIZE_DEFAULT = 100;

export interface PageParams {
  page?: number;
  page_size?: number;
}

export interface Page<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

export interface PaginateOptions {
  /** The listed table's id column (or the columns of its key), the stable tie-breaker. */
  idColumn: string | readonly string[];
  /** Default order of the collection (events: newest first). */
  defaultDirection?: 'asc' | 'desc';
  /**
   * Columns ordered ascending before the id when the filter asks for no order (images: private
   * ones, `is_public` 0, before public ones).
   */
  leading?: readonly string[];
  /**
   * The database the query runs on: outside a transaction, the COUNT of a full page is then
   * kept until the database changes (see `dataVersion` and `countSince`). Large collections (instances:
   * a COUNT over 100,000 index entries takes milliseconds) pass it.
   */
  countCache?: Database;
}

interface CountCache {
  /** The version the entries hold for; any other version empties the cache. */
  version: string;
  entries: Map<string, number>;
}

const COUNTS = new DatabaseSlot<CountCache>('pagination.counts');
const COUNT_CACHE_ENTRIES = 1_000;

/**
 * A value that changes whenever a row of the database may have changed; undefined inside a
 * transaction (its own uncommitted writes count there), where a count is not cached.
 * - SQLite: the connection's `total_changes()` counts every row it inserted, updated or deleted
 *   (in triggers and cascades too, in rolled-back transactions too: never fewer), and
 *   `PRAGMA data_version` changes when another connection (another process) commits.
 * - PostgreSQL: the current snapshot (`xmin:xmax:in-progress xids`). A write gets a transaction
 *   id, which moves `xmax`, and its end leaves the in-progress list: two equal snapshots see the
 *   same committed transactions, hence the same rows, in every database of the cluster.
 */
async function dataVersion(db: Database): Promise<string | undefined> {
  if (db.isTransaction) return undefined;
  if (db.dialect === 'postgres') {
    const row = await sql<{ s: string }>`select txid_current_snapshot()::text as s`.execute(db.db);
    return row.rows[0]?.s;
  }
  if (!db.dataVersion) return undefined;
  const row = await sql<{ c: number }>`select total_changes() as c`.execute(db.db);
  return `${db.dataVersion()}:${row.rows[0]?.c ?? ''}`;
}

/**
 * The count of `query`, from the cache when nothing in the database changed since it was taken:
 * exact, never stale. A count is kept only when the version read before and after it is the
 * same, so no write of this process or another slipped between.
 */
async function countSince(
  db: Database,
  query: { compile(): { sql: string; parameters: readonly unknown[] } },
  count: () => Promise<number>,
): Promise<number> {
  const before = await dataVersion(db);
  if (before === undefined) return count();
  const cache = db.slot(COUNTS, () => ({ version: '', entries: new Map<string, number>() }));
  if (cache.version !== before) {
    cache.version = before;
    cache.entries.clear();
  }
  const compiled = query.compile();
  const key = `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
  const hit = cache.entries.get(key);
  if (hit !== undefined) return hit;
  const n = await count();
  if ((await dataVersion(db)) === before && cache.version === before) {
    if (cache.entries.size >= COUNT_CACHE_ENTRIES) cache.entries.clear();
    cache.entries.set(key, n);
  }
  return n;
}

// biome-ignore lint/suspicious/noExplicitAny: Kysely's builder generics vary per table.
type AnySelect = SelectQueryBuilder<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above.
type SelectOf<Row> = SelectQueryBuilder<any, any, Row>;

/**
 * The paging arithmetic shared by every collection. `rows(limit, offset)` reads one row more
 * than the page holds, so the total is known without a COUNT whenever the page is not full and
 * not past the end (a filtered list that fits one page, the last page): `results` = offset + rows.
 * Only a full page, or an empty page past the first, runs `count()`.
 */
export async function pageOf<T>(
  params: PageParams,
  rows: (limit: number, offset: number) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Page<T>> {
  const page = params.page ?? 1;
  const pageSize = params.page_size ?? PAGE_SIZE_DEFAULT;
  const offset = (page - 1) * pageSize;
  // A page past any table's size (page=99999999999999999999): no OFFSET the engines would
  // reject as an integer overflow; the page is empty.
  const data = Number.isSafeInteger(offset) ? await rows(pageSize + 1, offset) : [];
  let results: number;
  if (data.length > pageSize) {
    data.length = pageSize;
    results = await count();
  } else if (data.length > 0 || page === 1) {
    results = offset + data.length;
  } else {
    results = await count();
  }
  const pages = Math.max(1, Math.ceil(results / pageSize));
  return { data, page, pages, results };
}

/**
 * Runs a filtered, ordered, paged query in SQL: a LIMIT/OFFSET query, and a COUNT only when the
 * page does not tell the total (see `pageOf`).
 * `base` has its FROM, joins and visibility conditions but no selection; `select` adds it.
 */
export async function paginate<Row, Out>(
  base: AnySelect,
  select: (qb: AnySelect) => SelectOf<Row>,
  filter: CompiledFilter,
  params: PageParams,
  opts: PaginateOptions,
  map: (row: Row) => Out,
): Promise<Page<Out>> {
  const filtered = filter.where ? base.where(filter.where) : base;
  const direction = opts.defaultDirection ?? 'asc';
  const page = await pageOf(
    params,
    async (limit, offset) => {
      let q = select(filtered);
      if (filter.orderBy) q = q.orderBy(sql.ref(filter.orderBy.column), filter.orderBy.direction);
      else for (const col of opts.leading ?? []) q = q.orderBy(sql.ref(col), 'asc');
      for (const col of typeof opts.idColumn === 'string' ? [opts.idColumn] : opts.idColumn) {
        q = q.orderBy(sql.ref(col), filter.orderBy?.direction ?? direction);
      }
      return (await q.limit(limit).offset(offset).execute()) as Row[];
    },
    async () => {
      const query = filtered.select(sql<number>`count(*)`.as('n'));
      const count = async () => {
        const row = (await query.executeTakeFirst()) as { n: number | string } | undefined;
        return Number(row?.n ?? 0);
      };
      return opts.countCache ? countSince(opts.countCache, query, count) : count();
    },
  );
  return { ...page, data: page.data.map(map) };
}
