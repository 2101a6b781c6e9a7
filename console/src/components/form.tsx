import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { ApiError, del } from '../lib/api';
import { type Column, ErrorBox } from './ui';

export interface Option {
  value: string;
  label: string;
}

export interface FieldSpec {
  name: string;
  label: string;
  type?:
    | 'text'
    | 'number'
    | 'password'
    | 'email'
    | 'select'
    | 'checkbox'
    | 'textarea'
    | 'list'
    | 'json'
    | 'file';
  options?: Option[];
  required?: boolean;
  help?: string;
  initial?: string | boolean | number;
  placeholder?: string;
  autoComplete?: string;
}

export type Values = Record<string, unknown>;

type Raw = Record<string, string | boolean | File | null>;

/** A field's first value: its `initial`, or empty. */
const initialOf = (f: FieldSpec): string | boolean =>
  f.type === 'checkbox' ? f.initial === true : f.initial === undefined ? '' : String(f.initial);

/**
 * A field's current value: what was typed or chosen, its initial value while untouched (also for
 * a field that appears later, e.g. one a region offers), and empty for a choice that is no longer
 * among the select's options (a region changed under it).
 */
function currentOf(f: FieldSpec, raw: Raw): string | boolean | File | null {
  const v = f.name in raw ? (raw[f.name] ?? null) : initialOf(f);
  if (f.type === 'select' && typeof v === 'string' && v !== '' && f.options)
    return f.options.some((o) => o.value === v) ? v : '';
  return v;
}

/** The typed value of each field: empty fields are left out (the API's defaults apply). */
function collect(fields: FieldSpec[], raw: Raw): Values {
  const out: Values = {};
  for (const f of fields) {
    const v = currentOf(f, raw);
    if (f.type === 'checkbox') {
      out[f.name] = v === true;
      continue;
    }
    if (f.type === 'file') {
      if (v instanceof File) out[f.name] = v;
      continue;
    }
    if (typeof v !== 'string' || v.trim() === '') continue;
    if (f.type === 'number') out[f.name] = Number(v);
    else if (f.type === 'list')
      out[f.name] = v
        .split(/[\n,]/)
        .map((s) => s.trim())
        .filter(Boolean);
    else if (f.type === 'json') out[f.name] = JSON.parse(v);
    else out[f.name] = v;
  }
  return out;
}

/**
 * A form of fields described by specs. On submit it calls `onSubmit` with the typed values; an
 * ApiError's field errors are shown under their fields (the API's field names), the rest above.
 */
export function Form({
  fields,
  submitLabel,
  onSubmit,
  children,
  danger,
  onChange,
}: {
  fields: FieldSpec[];
  submitLabel: string;
  onSubmit: (v: Values) => Promise<unknown>;
  children?: ReactNode;
  danger?: boolean;
  /** Each change of a field, with the form's values (typed as on submit): for fields that depend on others. */
  onChange?: (v: Values) => void;
}) {
  const id = useId();
  const [raw, setRaw] = useState<Raw>(() =>
    Object.fromEntries(fields.map((f) => [f.name, initialOf(f)])),
  );
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const byField = new Map<string, string>();
  const rest: string[] = [];
  if (error instanceof ApiError)
    for (const e of error.errors) {
      const name = fields.find(
        (f) =>
          e.field === f.name ||
          e.field?.startsWith(`${f.name}.`) ||
          e.field?.startsWith(`${f.name}[`),
      )?.name;
      if (name)
        byField.set(
          name,
          `${byField.get(name) ? `${byField.get(name)} ` : ''}${e.field === name ? '' : `${e.field}: `}${e.reason}`,
        );
      else rest.push(e.field ? `${e.field}: ${e.reason}` : e.reason);
    }
  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(false);
    try {
      await onSubmit(collect(fields, raw));
      setDone(true);
    } catch (err) {
      setError(err instanceof SyntaxError ? new Error(`Not valid JSON: ${err.message}`) : err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      {error instanceof ApiError ? (
        rest.length > 0 ? (
          <div className="alert" role="alert">
            {rest.map((r) => (
              <p key={r}>{r}</p>
            ))}
          </div>
        ) : (
          <p className="sr-only" role="alert">
            The form has errors.
          </p>
        )
      ) : (
        <ErrorBox error={error} />
      )}
      <div className="fields">
        {fields.map((f) => {
          const fid = `${id}-${f.name}`;
          const err = byField.get(f.name);
          const describedBy = [f.help ? `${fid}-help` : '', err ? `${fid}-err` : '']
            .filter(Boolean)
            .join(' ');
          const common = {
            id: fid,
            name: f.name,
            'aria-invalid': err ? true : undefined,
            'aria-describedby': describedBy || undefined,
            required: f.required,
          };
          const set = (v: string | boolean | File | null) => {
            const next = { ...raw, [f.name]: v };
            setRaw(next);
            if (onChange) {
              try {
                onChange(collect(fields, next));
              } catch {
                // a JSON field being typed: the others are told at its next valid change
              }
            }
          };
          const current = currentOf(f, raw);
          let input: ReactNode;
          if (f.type === 'checkbox')
            return (
              <div key={f.name} className="field">
                <label className="inline" htmlFor={fid}>
                  <input
                    {...common}
                    type="checkbox"
                    checked={current === true}
                    onChange={(e) => set(e.target.checked)}
                  />
                  {f.label}
                </label>
                {f.help ? (
                  <p className="help" id={`${fid}-help`}>
                    {f.help}
                  </p>
                ) : null}
                {err ? (
                  <p className="field-error" id={`${fid}-err`}>
                    {err}
                  </p>
                ) : null}
              </div>
            );
          if (f.type === 'select')
            input = (
              <select
                {...common}
                value={String(current ?? '')}
                onChange={(e) => set(e.target.value)}
              >
                {f.required ? null : <option value="">—</option>}
                {f.required && current === '' ? <option value="">Choose…</option> : null}
                {(f.options ?? []).map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            );
          else if (f.type === 'textarea' || f.type === 'json' || f.type === 'list')
            input = (
              <textarea
                {...common}
                value={String(current ?? '')}
                placeholder={f.placeholder}
                onChange={(e) => set(e.target.value)}
              />
            );
          else if (f.type === 'file')
            input = (
              <input {...common} type="file" onChange={(e) => set(e.target.files?.[0] ?? null)} />
            );
          else
            input = (
              <input
                {...common}
                type={f.type ?? 'text'}
                value={String(current ?? '')}
                placeholder={f.placeholder}
                autoComplete={f.autoComplete ?? (f.type === 'password' ? 'new-password' : 'off')}
                onChange={(e) => set(e.target.value)}
              />
            );
          return (
            <div key={f.name} className="field">
              <label htmlFor={fid}>
                {f.label}
                {f.required ? <span aria-hidden="true"> *</span> : null}
              </label>
              {input}
              {f.help ? (
                <p className="help" id={`${fid}-help`}>
                  {f.help}
                </p>
              ) : null}
              {err ? (
                <p className="field-error" id={`${fid}-err`}>
                  {err}
                </p>
              ) : null}
            </div>
          );
        })}
      </div>
      {children}
      <div className="actions">
        <button type="submit" disabled={busy} className={danger ? 'danger' : undefined}>
          {busy ? 'Working…' : submitLabel}
        </button>
        {done && !busy ? (
          <span className="ok-text" role="status">
            Done.
          </span>
        ) : null}
      </div>
    </form>
  );
}

/** A button that runs one call (an action without a body), after a confirmation if asked. */
export function ActionButton({
  label,
  run,
  confirm,
  danger,
  secondary,
}: {
  label: string;
  run: () => Promise<unknown>;
  confirm?: string;
  danger?: boolean;
  secondary?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  return (
    <span className="action">
      <button
        type="button"
        disabled={busy}
        className={danger ? 'danger' : secondary ? 'secondary' : undefined}
        onClick={async () => {
          if (confirm && !window.confirm(confirm)) return;
          setBusy(true);
          setError(undefined);
          try {
            await run();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? 'Working…' : label}
      </button>
      <ErrorBox error={error} />
    </span>
  );
}

/** A form that opens from a button (the long actions: resize, rebuild, …). */
export function Disclosure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <details className="disclosure">
      <summary>{label}</summary>
      <div className="disclosure-body">{children}</div>
    </details>
  );
}

/**
 * A column whose button (labelled as the column) deletes the row's resource, `DELETE url(row)`,
 * then refreshes what shows it.
 */
export function removeColumn<T>(
  label: string,
  url: (row: T) => string,
  refresh: () => Promise<unknown>,
): Column<T> {
  return {
    key: 'x',
    label,
    render: (r) => (
      <ActionButton
        label={label}
        secondary
        run={async () => {
          await del(url(r));
          await refresh();
        }}
      />
    ),
  };
}
