import { useQuery } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { type CallOptions, get, type Page } from '../lib/api';
import { type Column, ErrorBox, Loading, Table } from './ui';

export interface FilterSpec {
  /** The API's filterable field (X-Filter key). */
  key: string;
  label: string;
  type?: 'text' | 'number' | 'boolean';
}

/** One page of a collection, refetched when the event feed says something changed. */
export function usePage<T>(
  path: string,
  page: number,
  pageSize: number,
  filter?: unknown,
  o: CallOptions = {},
) {
  return useQuery({
    queryKey: [path, { page, pageSize, filter, operator: o.operator }],
    queryFn: () =>
      get<Page<T>>(path, {
        ...o,
        query: { ...(o.query ?? {}), page, page_size: pageSize },
        filter,
      }),
    placeholderData: (prev) => prev,
  });
}

/**
 * A collection with the API's paging (`page`, `page_size`) and filters (`X-Filter`: the fields
 * the API declares filterable, and an order).
 */
export function ListView<T extends object>({
  path,
  title,
  columns,
  filters = [],
  orderBy = [],
  rowKey,
  actions,
  operator,
  query,
  baseFilter,
}: {
  path: string;
  title: string;
  columns: Column<T>[];
  filters?: FilterSpec[];
  orderBy?: string[];
  rowKey?: (row: T) => string | number;
  actions?: ReactNode;
  operator?: boolean;
  query?: Record<string, string | number | undefined>;
  /** A filter always applied (a tab of the list), merged with the user's. */
  baseFilter?: Record<string, unknown>;
}) {
  const id = useId();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(25);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [filter, setFilter] = useState<Record<string, unknown> | undefined>();
  const effective = baseFilter || filter ? { ...baseFilter, ...filter } : undefined;
  const q = usePage<T>(path, page, pageSize, effective, {
    ...(operator ? { operator } : {}),
    ...(query ? { query } : {}),
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const f: Record<string, unknown> = {};
    for (const s of filters) {
      const v = draft[s.key]?.trim();
      if (!v) continue;
      f[s.key] = s.type === 'number' ? Number(v) : s.type === 'boolean' ? v === 'true' : v;
    }
    if (draft['+order_by']) {
      f['+order_by'] = draft['+order_by'];
      f['+order'] = draft['+order'] || 'asc';
    }
    setPage(1);
    setFilter(Object.keys(f).length > 0 ? f : undefined);
  };
  return (
    <section className="card" aria-labelledby={id}>
      <div className="section-head">
        <h2 id={id}>{title}</h2>
        {actions ? <div className="head-actions">{actions}</div> : null}
      </div>
      {filters.length > 0 || orderBy.length > 0 ? (
        <form className="filters" onSubmit={apply} aria-label={`Filter ${title.toLowerCase()}`}>
          {filters.map((f) => (
            <div key={f.key} className="filter">
              <label htmlFor={`${id}-${f.key}`}>{f.label}</label>
              {f.type === 'boolean' ? (
                <select
                  id={`${id}-${f.key}`}
                  value={draft[f.key] ?? ''}
                  onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
                >
                  <option value="">any</option>
                  <option value="true">yes</option>
                  <option value="false">no</option>
                </select>
              ) : (
                <input
                  id={`${id}-${f.key}`}
                  type={f.type === 'number' ? 'number' : 'text'}
                  value={draft[f.key] ?? ''}
                  onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
                />
              )}
            </div>
          ))}
          {orderBy.length > 0 ? (
            <>
              <div className="filter">
                <label htmlFor={`${id}-order-by`}>Order by</label>
                <select
                  id={`${id}-order-by`}
                  value={draft['+order_by'] ?? ''}
                  onChange={(e) => setDraft({ ...draft, '+order_by': e.target.value })}
                >
                  <option value="">default</option>
                  {orderBy.map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              </div>
              <div className="filter">
                <label htmlFor={`${id}-order`}>Order</label>
                <select
                  id={`${id}-order`}
                  value={draft['+order'] ?? 'asc'}
                  onChange={(e) => setDraft({ ...draft, '+order': e.target.value })}
                >
                  <option value="asc">ascending</option>
                  <option value="desc">descending</option>
                </select>
              </div>
            </>
          ) : null}
          <button type="submit" className="secondary">
            Apply
          </button>
        </form>
      ) : null}
      <ErrorBox error={q.error} />
      {q.data ? (
        <>
          <Table
            rows={q.data.data}
            columns={columns}
            caption={title}
            {...(rowKey ? { rowKey } : {})}
          />
          <nav className="pager" aria-label={`${title} pages`}>
            <button
              type="button"
              className="secondary"
              disabled={page <= 1}
              onClick={() => setPage(page - 1)}
            >
              Previous
            </button>
            <span>
              Page {q.data.page} of {q.data.pages} · {q.data.results} in all
            </span>
            <button
              type="button"
              className="secondary"
              disabled={page >= q.data.pages}
              onClick={() => setPage(page + 1)}
            >
              Next
            </button>
            <label className="inline" htmlFor={`${id}-size`}>
              Per page
              <select
                id={`${id}-size`}
                value={pageSize}
                onChange={(e) => {
                  setPage(1);
                  setPageSize(Number(e.target.value));
                }}
              >
                {[25, 50, 100, 500].map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
          </nav>
        </>
      ) : q.isLoading ? (
        <Loading />
      ) : null}
    </section>
  );
}
