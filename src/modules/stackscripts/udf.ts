import type { FieldErrors } from '../../errors/errors.js';

/** A user-defined field of a StackScript (reference UserDefinedField). */
export interface UserDefinedField {
  name: string;
  label: string;
  example: string;
  oneOf?: string;
  manyOf?: string;
  default?: string;
  /** Display hints some scripts carry in their tags (`header="Yes"`, `required="Yes"`). */
  header?: string;
  required?: string;
}

const UDF_TAG = /<udf\b([^>]*?)\/?>/gi;
const ATTR = /([A-Za-z_][A-Za-z0-9_]*)\s*=\s*("([^"]*)"|'([^']*)')/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The `<UDF name="…" label="…" example="…" oneOf="…" manyOf="…" default="…"/>` tags of a script,
 * in order (attribute names are case-insensitive); a tag without a valid name is skipped, and a
 * name seen twice keeps its first declaration.
 */
export function parseUdfs(script: string): UserDefinedField[] {
  const out: UserDefinedField[] = [];
  const seen = new Set<string>();
  for (const tag of script.matchAll(UDF_TAG)) {
    const attrs = new Map<string, string>();
    for (const a of (tag[1] ?? '').matchAll(ATTR)) {
      const key = (a[1] ?? '').toLowerCase();
      if (!attrs.has(key)) attrs.set(key, a[3] ?? a[4] ?? '');
    }
    const name = attrs.get('name');
    if (!name || !NAME.test(name) || seen.has(name)) continue;
    seen.add(name);
    const f: UserDefinedField = {
      name,
      label: attrs.get('label') ?? name,
      example: attrs.get('example') ?? '',
    };
    if (attrs.has('oneof')) f.oneOf = attrs.get('oneof');
    if (attrs.has('manyof')) f.manyOf = attrs.get('manyof');
    if (attrs.has('default')) f.default = attrs.get('default');
    if (attrs.has('header')) f.header = attrs.get('header');
    if (attrs.has('required')) f.required = attrs.get('required');
    out.push(f);
  }
  return out;
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/**
 * Checks `stackscript_data` against the script's fields: every field without a default is
 * required, values are strings, a `oneOf` value is one of its list, a `manyOf` value is a comma
 * list of its values. Returns the values the script runs with (defaults filled in).
 */
export function checkUdfData(
  fe: FieldErrors,
  fields: readonly UserDefinedField[],
  data: Record<string, unknown> | undefined,
): Record<string, string> {
  const values: Record<string, string> = {};
  const given = data ?? {};
  for (const f of fields) {
    const path = `stackscript_data.${f.name}`;
    const v = Object.hasOwn(given, f.name) ? given[f.name] : undefined;
    if (v === undefined || v === null || v === '') {
      if (f.default !== undefined) values[f.name] = f.default;
      else fe.add(path, `${f.label} is required`);
      continue;
    }
    if (typeof v !== 'string') {
      fe.add(path, `${f.label} must be a string`);
      continue;
    }
    if (f.oneOf !== undefined && !list(f.oneOf).includes(v)) {
      fe.add(path, `${f.label} must be one of: ${list(f.oneOf).join(', ')}`);
      continue;
    }
    if (f.manyOf !== undefined) {
      const allowed = list(f.manyOf);
      const bad = list(v).filter((x) => !allowed.includes(x));
      if (bad.length > 0) {
        fe.add(path, `${f.label} must be a comma-separated list of: ${allowed.join(', ')}`);
        continue;
      }
    }
    values[f.name] = v;
  }
  return values;
}
