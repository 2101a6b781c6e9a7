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
}

// biome-ignore lint/suspicious/noExplicitAny: Kysely's builder generics vary per table.
type AnySelect = SelectQueryBuilder<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above.
type SelectOf<Row> = SelectQueryBuilder<any, any, Row>;

/**
 * Runs a filtered, ordered, paged query: one COUNT and one LIMIT/OFFSET query, both in SQL.
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
  const page = params.page ?? 1;
  const pageSize = params.page_size ?? PAGE_SIZE_DEFAULT;
  const filtered = filter.where ? base.where(filter.where) : base;
  const countRow = (await filtered.select(sql<number>`count(*)`.as('n')).executeTakeFirst()) as
    | { n: number | string }
    | undefined;
  const results = Number(countRow?.n ?? 0);
  const pages = Math.max(1, Math.ceil(results / pageSize));
  if ((page - 1) * pageSize >= results) return { data: [], page, pages, results };
  const direction = opts.defaultDirection ?? 'asc';
  let q = select(filtered);
  if (filter.orderBy) q = q.orderBy(sql.ref(filter.orderBy.column), filter.orderBy.direction);
  for (const col of typeof opts.idColumn === 'string' ? [opts.idColumn] : opts.idColumn) {
    q = q.orderBy(sql.ref(col), filter.orderBy?.direction ?? direction);
  }
  const rows = await q
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute();
  return { data: rows.map(map), page, pages, results };
}
