import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { errors } from '../errors/errors.js';
import { nulPath } from './nul.js';
import { isoSeconds, parseApiTime } from './time.js';

export type ScalarKind = 'int' | 'number' | 'string' | 'bool' | 'datetime';

export interface ScalarField {
  kind: ScalarKind;
  /** A trusted column reference from code, e.g. `events.entity_id`; never user input. */
  column: string;
  /** Whether `+order_by` may use it (default true). */
  orderable?: boolean;
}

export type ArrayOp = 'eq' | 'neq' | 'contains';

/**
 * An array field (tags, ipv4): the filter asks about membership. `member` builds the condition,
 * typically an EXISTS subquery, with `value` as a parameter (`containsCondition` for `contains`).
 */
export interface ArrayField {
  kind: 'array';
  member: (op: ArrayOp, value: string, dialect: 'sqlite' | 'postgres') => RawBuilder<SqlBool>;
}

export type FieldSpec = ScalarField | ArrayField;
/** The filterable fields of one resource, by their API name (dotted for nested ones). */
export type FilterSpec = Readonly<Record<string, FieldSpec>>;

export interface OrderBy {
  column: string;
  direction: 'asc' | 'desc';
}

export interface CompiledFilter {
  where: RawBuilder<SqlBool> | undefined;
  orderBy: OrderBy | undefined;
}

const MAX_DEPTH = 8;
const MAX_CONDITIONS = 100;
const COMPARISONS = { '+gt': '>', '+gte': '>=', '+lt': '<', '+lte': '<=' } as const;
type Comparison = keyof typeof COMPARISONS;

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

const isObject = (v: Json | undefined): v is { [k: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec's own entry for a key: never an inherited property such as `constructor`. */
const fieldOf = (spec: FilterSpec, key: string): FieldSpec | undefined =>
  Object.hasOwn(spec, key) ? spec[key] : undefined;

/**
 * `expr` contains `value` as a substring, case-insensitively; `%`, `_` and `\` in the value are
 * literal. The value is a parameter.
 */
export function containsCondition(
  expr: RawBuilder<unknown>,
  value: string,
  dialect: 'sqlite' | 'postgres',
): RawBuilder<SqlBool> {
  const pattern = `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // SQLite's LIKE is already case-insensitive (for ASCII).
  return dialect === 'postgres'
    ? sql<SqlBool>`${expr} ilike ${pattern} escape '\\'`
    : sql<SqlBool>`${expr} like ${pattern} escape '\\'`;
}

class Compiler {
  private conditions = 0;
  constructor(
    private readonly spec: FilterSpec,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  /** An object of ANDed keys. */
  object(obj: { [k: string]: Json }, depth: number, top: boolean): RawBuilder<SqlBool> | undefined {
    if (depth > MAX_DEPTH) throw errors.filter('Filter is nested too deeply');
    const parts: RawBuilder<SqlBool>[] = [];
    for (const [key, value] of Object.entries(obj)) {
      if (key === '+order_by' || key === '+order') {
        if (!top) throw errors.filter(`${key} is only allowed at the top level`);
        continue;
      }
      if (key === '+and' || key === '+or') {
        if (!Array.isArray(value) || value.length === 0) {
          throw errors.filter(`${key} must be a non-empty array of filter objects`);
        }
        const inner = value.map((v) => {
          if (!isObject(v))
            throw errors.filter(`${key} must be a non-empty array of filter objects`);
          this.count();
          return this.object(v, depth + 1, false) ?? sql<SqlBool>`1 = 1`;
        });
        parts.push(
          sql<SqlBool>`(${sql.join(inner, sql` ${sql.raw(key === '+and' ? 'and' : 'or')} `)})`,
        );
        continue;
      }
      if (key.startsWith('+')) throw errors.filter(`Unknown filter operator ${key}`);
      const field = fieldOf(this.spec, key);
      if (!field) throw errors.cannotFilterOn(key);
      parts.push(this.field(key, field, value, depth + 1));
    }
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
  }

  private count(): void {
    if (++this.conditions > MAX_CONDITIONS) throw errors.filter('Filter has too many conditions');
  }

  private field(key: string, field: FieldSpec, value: Json, depth: number): RawBuilder<SqlBool> {
    if (depth > MAX_DEPTH) throw errors.filter('Filter is nested too deeply');
    if (isObject(value)) {
      const ops = Object.entries(value);
      if (ops.length === 0) throw errors.filter(`Filter on ${key} has no operator`);
      const parts = ops.map(([op, operand]) => {
        if (op === '+or' || op === '+and') {
          if (!Array.isArray(operand) || operand.length === 0) {
            throw errors.filter(`${op} on ${key} must be a non-empty array`);
          }
          const inner = operand.map((v) => {
            this.count();
            return this.field(key, field, v, depth + 1);
          });
          return sql<SqlBool>`(${sql.join(inner, sql` ${sql.raw(op === '+and' ? 'and' : 'or')} `)})`;
        }
        if (!op.startsWith('+')) throw errors.filter(`Unknown filter operator ${op}`);
        return this.operator(key, field, op, operand);
      });
      return parts.length === 1
        ? (parts[0] as RawBuilder<SqlBool>)
        : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
    }
    if (Array.isArray(value))
      throw errors.filter(`Filter on ${key} must be a value or an operator object`);
    return this.operator(key, field, '=', value);
  }

  private operator(key: string, field: FieldSpec, op: string, operand: Json): RawBuilder<SqlBool> {
    this.count();
    if (field.kind === 'array') {
      if (typeof operand !== 'string')
        throw errors.filter(`Filter on ${key} must be a string or dict`);
      if (op === '=') return field.member('eq', operand, this.dialect);
      if (op === '+neq') return field.member('neq', operand, this.dialect);
      if (op === '+contains') return field.member('contains', operand, this.dialect);
      throw errors.filter(`Operator ${op} is not supported on ${key}`);
    }
    const col = sql.ref(field.column);
    if (op === '=') {
      if (operand === null) return sql<SqlBool>`${col} is null`;
      return sql<SqlBool>`${col} = ${this.value(key, field, operand)}`;
    }
    if (op === '+neq') {
      if (operand === null) return sql<SqlBool>`${col} is not null`;
      return sql<SqlBool>`(${col} <> ${this.value(key, field, operand)} or ${col} is null)`;
    }
    if (op === '+contains') {
      if (field.kind !== 'string')
        throw errors.filter(`+contains needs a text field; ${key} is not one`);
      if (typeof operand !== 'string') throw errors.filter(`+contains on ${key} needs a string`);
      return containsCondition(col, operand, this.dialect);
    }
    if (Object.hasOwn(COMPARISONS, op)) {
      if (field.kind === 'bool') throw errors.filter(`${op} is not supported on ${key}`);
      if (operand === null) throw errors.filter(`${op} on ${key} needs a value`);
      return sql<SqlBool>`${col} ${sql.raw(COMPARISONS[op as Comparison])} ${this.value(key, field, operand)}`;
    }
    throw errors.filter(`Unknown filter operator ${op}`);
  }

  /** Checks and converts one value to the column's stored form, as a parameter. */
  private value(key: string, field: ScalarField, v: Json): RawBuilder<unknown> {
    const checked = this.checked(key, field, v);
    // Integer columns are 32-bit on PostgreSQL: a larger value must match nothing, not fail.
    if (field.kind === 'int' && this.dialect === 'postgres') return sql`cast(${checked} as bigint)`;
    return sql`${checked}`;
  }

  private checked(key: string, field: ScalarField, v: Json): string | number {
    switch (field.kind) {
      case 'int':
      case 'number': {
        const n =
          typeof v === 'number'
            ? v
            : typeof v === 'string' && v.trim() !== ''
              ? Number(v)
              : Number.NaN;
        if (!Number.isFinite(n) || (field.kind === 'int' && !Number.isSafeInteger(n))) {
          throw errors.filter(`Filter on ${key} needs a number`);
        }
        return n;
      }
      case 'bool':
        if (typeof v === 'boolean') return v ? 1 : 0;
        throw errors.filter(`Filter on ${key} needs true or false`);
      case 'datetime': {
        const ms = typeof v === 'string' ? parseApiTime(v) : Number.NaN;
        if (Number.isNaN(ms))
          throw errors.filter(`Filter on ${key} needs a date-time such as 2024-01-01T00:00:00`);
        return isoSeconds(ms);
      }
      case 'string':
        if (typeof v === 'string') return v;
        if (typeof v === 'number' || typeof v === 'boolean') return String(v);
        throw errors.filter(`Filter on ${key} needs a string`);
    }
  }
}

/**
 * Translates an X-Filter header into a parameterised SQL condition and ordering. Only the
 * resource's filterable fields are accepted; any other key is `Cannot filter on <key>`.
 */
export function compileFilter(
  header: string | string[] | undefined,
  spec: FilterSpec,
  dialect: 'sqlite' | 'postgres',
): CompiledFilter {
  if (header === undefined) return { where: undefined, orderBy: undefined };
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '') return { where: undefined, orderBy: undefined };
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    throw errors.filter('X-Filter must be a JSON object');
  }
  if (!isObject(parsed)) throw errors.filter('X-Filter must be a JSON object');
  if (nulPath(parsed) !== undefined)
    throw errors.filter('X-Filter must not contain NUL characters');
  const where = new Compiler(spec, dialect).object(parsed, 0, true);

  let orderBy: OrderBy | undefined;
  const orderKey = parsed['+order_by'];
  const order = parsed['+order'];
  if (orderKey !== undefined) {
    if (typeof orderKey !== 'string') throw errors.filter('+order_by must be a field name');
    const field = fieldOf(spec, orderKey);
    if (!field) throw errors.cannotFilterOn(orderKey);
    if (field.kind === 'array' || field.orderable === false)
      throw errors.filter(`Cannot order by ${orderKey}`);
    if (order !== undefined && order !== 'asc' && order !== 'desc') {
      throw errors.filter('+order must be "asc" or "desc"');
    }
    orderBy = { column: field.column, direction: order === 'desc' ? 'desc' : 'asc' };
  } else if (order !== undefined) {
    throw errors.filter('+order requires +order_by');
  }
  return { where, orderBy };
}
