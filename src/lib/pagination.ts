import { type SelectQueryBuilder, sql } from 'kysely';
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
      const row = (await filtered.select(sql<number>`count(*)`.as('n')).executeTakeFirst()) as
        | { n: number | string }
        | undefined;
      return Number(row?.n ?? 0);
    },
  );
  return { ...page, data: page.data.map(map) };
}
