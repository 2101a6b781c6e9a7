import { type ReactNode, useId } from 'react';
import { ApiError } from '../lib/api';

/** A status as a labelled badge (colour is never the only signal: the word is written). */
export function Status({ value }: { value: string | null | undefined }) {
  const v = value ?? 'unknown';
  const tone =
    /^(running|active|enabled|finished|successful|completed|paid|ready|ok|accepted|compliant)$/.test(
      v,
    )
      ? 'ok'
      : /(fail|error|declined|offline|deleted|canceled|cancelled|stale|non_compliant|problem)/.test(
            v,
          )
        ? 'bad'
        : /^(offline|stopped|disabled|notification|pending|unknown)$/.test(v)
          ? 'idle'
          : 'busy';
  return <span className={`badge ${tone}`}>{v.replace(/_/g, ' ')}</span>;
}

/** An error of a call, with each field named. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const items =
    error instanceof ApiError
      ? error.errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason))
      : [error instanceof Error ? error.message : String(error)];
  return (
    <div className="alert" role="alert">
      {items.map((t) => (
        <p key={t}>{t}</p>
      ))}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" role="status">
      {what}…
    </p>
  );
}

/** Scalar fields of an object as a definition list (nested objects as JSON). */
export function Details({ value, omit = [] }: { value: Record<string, unknown>; omit?: string[] }) {
  return (
    <dl className="details">
      {Object.entries(value)
        .filter(([k]) => !omit.includes(k))
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k.replace(/_/g, ' ')}</dt>
            <dd>{show(v)}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A value for a table cell or a definition. */
export function show(v: unknown): ReactNode {
  if (v === null || v === undefined || v === '') return <span className="muted">—</span>;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x !== 'object'))
      return v.join(', ') || <span className="muted">—</span>;
    return <code className="json">{JSON.stringify(v)}</code>;
  }
  if (typeof v === 'object') return <code className="json">{JSON.stringify(v)}</code>;
  return String(v);
}

export interface Column<T> {
  key: string;
  label: string;
  render?: (row: T) => ReactNode;
}

/** A table of rows; scrolls sideways inside its box on a narrow screen. */
export function Table<T extends object>({
  rows,
  columns,
  caption,
  rowKey,
}: {
  rows: T[];
  columns: Column<T>[];
  caption: string;
  rowKey?: (row: T) => string | number;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <section className="table-wrap" tabIndex={0} aria-label={caption}>
      <table>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="muted">
                None yet.
              </td>
            </tr>
          ) : (
            rows.map((r, i) => (
              <tr key={rowKey ? rowKey(r) : i}>
                {columns.map((c) => (
                  <td key={c.key} data-label={c.label}>
                    {c.render ? c.render(r) : show((r as Record<string, unknown>)[c.key])}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </section>
  );
}

/** A labelled block of the page. */
export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <div className="section-head">
        <h2 id={id}>{title}</h2>
        {actions ? <div className="head-actions">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}

/** Money as the API gives it (US dollars). */
export const usd = (n: number | null | undefined) =>
  n === null || n === undefined ? '—' : `$${n.toFixed(2)}`;

/** A row of tabs (`role="tablist"`): one button per name, the chosen one `aria-selected`. */
export function Tabs<T extends string>({
  label,
  names,
  value,
  onChange,
}: {
  label: string;
  names: readonly T[];
  value: T;
  onChange: (name: T) => void;
}) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {names.map((n) => (
        <button
          key={n}
          type="button"
          role="tab"
          aria-selected={value === n}
          onClick={() => onChange(n)}
        >
          {n}
        </button>
      ))}
    </div>
  );
}
