import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Dialect } from '../config/config.js';
import type { Database } from './database.js';
import type { DatabaseSchema } from './schema.js';

/**
 * A statement whose shape is built and compiled once per dialect, then run with new arguments.
 *
 * Kysely builds a statement anew at every call (immutable builder objects, an operation-node tree,
 * then the compiler's walk over it): in a volume create, with its job, that was 12 to 15% of the
 * server's CPU. The statements on the hot paths (the job runner's claim, the queue's enqueue, the
 * events writer, a create's insert) have a fixed shape: only their values change. `statement`
 * runs the builder once per dialect with a placeholder for each argument, records which compiled
 * parameter is which argument (the other parameters are constants of the shape and stay as they
 * were built), and then executes the compiled SQL with the caller's arguments. The SQL text is the
 * same at every call, so SQLite's prepared-statement cache (src/db/dialect.ts) keeps serving it.
 *
 * The builder must use each argument only as a value handed to Kysely (a column's value, a
 * comparison's operand, a `sql` template's value): never in JavaScript (`x ?? null`, `String(x)`,
 * `x.length`, a condition), which would see the placeholder instead of the value. An argument that
 * does not reach the compiled parameters is caught at the first call (it throws), as is a wrong
 * number of arguments at every call. The shape must not depend on the values: an `in` list of
 * variable length, or an optional column, is not a statement for this.
 */
export class Statement<A extends unknown[], O> {
  private readonly shapes = new Map<Dialect, Shape>();
  private readonly arity: number;

  constructor(
    private readonly build: (q: Builder, ...args: A) => Built<O>,
    /** Named in errors. */
    readonly name = 'statement',
    /** The number of arguments (default: the builder's parameters after the first). */
    arity?: number,
  ) {
    this.arity = arity ?? Math.max(0, build.length - 1);
  }

  /** The compiled SQL and parameters this statement sends for these arguments. */
  compile(db: Database, ...args: A): CompiledQuery<O> {
    if (args.length !== this.arity) {
      throw new Error(`${this.name}: expected ${this.arity} arguments, got ${args.length}`);
    }
    const shape = this.shape(db);
    const parameters = new Array<unknown>(shape.slots.length);
    for (let i = 0; i < shape.slots.length; i++) {
      const slot = shape.slots[i] as number;
      parameters[i] = slot < 0 ? shape.constants[i] : args[slot];
    }
    return { query: shape.query, queryId: shape.queryId, sql: shape.sql, parameters };
  }

  /** Runs it: the rows (a `returning` or a select) and the affected rows' count. */
  run(db: Database, ...args: A): Promise<QueryResult<O>> {
    return db.db.executeQuery(this.compile(db, ...args));
  }

  /** Runs it and answers its rows. */
  async rows(db: Database, ...args: A): Promise<O[]> {
    return (await this.run(db, ...args)).rows;
  }

  /** Runs it and answers its first row, if any. */
  async first(db: Database, ...args: A): Promise<O | undefined> {
    return (await this.run(db, ...args)).rows[0];
  }

  /** Runs it and answers the number of rows it inserted, updated or deleted. */
  async affected(db: Database, ...args: A): Promise<number> {
    const res = await this.run(db, ...args);
    return Number(res.numAffectedRows ?? 0);
  }

  private shape(db: Database): Shape {
    let shape = this.shapes.get(db.dialect);
    if (shape) return shape;
    const markers = Array.from({ length: this.arity }, (_, i) => new Arg(i));
    const built = this.build({ db: db.db, dialect: db.dialect }, ...(markers as A));
    // A query builder compiles by itself; a `sql` template needs the Kysely it runs on.
    const compiled = (built.compile as (on: Kysely<DatabaseSchema>) => CompiledQuery<O>).call(
      built,
      db.db,
    );
    const slots: number[] = [];
    const constants: unknown[] = [];
    const used = new Set<number>();
    for (const p of compiled.parameters) {
      if (p instanceof Arg) {
        slots.push(p.index);
        constants.push(undefined);
        used.add(p.index);
      } else {
        slots.push(-1);
        constants.push(p);
      }
    }
    for (let i = 0; i < this.arity; i++) {
      if (!used.has(i)) {
        throw new Error(
          `${this.name}: argument ${i + 1} is not a parameter of the built statement (used in JavaScript, not handed to the query?)`,
        );
      }
    }
    shape = {
      sql: compiled.sql,
      query: compiled.query,
      queryId: compiled.queryId,
      slots,
      constants,
    };
    this.shapes.set(db.dialect, shape);
    return shape;
  }
}

/** What a statement's builder makes: a query builder, or a `sql` template. */
export type Built<O> = Compilable<O> | RawBuilder<O>;

/** What a statement's builder is given besides its arguments. */
export interface Builder {
  db: Kysely<DatabaseSchema>;
  dialect: Dialect;
}

/** A placeholder for an argument while the shape is built. */
class Arg {
  constructor(readonly index: number) {}
}

interface Shape {
  sql: string;
  query: CompiledQuery['query'];
  queryId: CompiledQuery['queryId'];
  /** Per compiled parameter: the argument's index, or -1 for a constant of the shape. */
  slots: number[];
  constants: unknown[];
}

/**
 * A statement built once per dialect (see Statement). The builder's parameters after the first
 * are the statement's arguments, in order: `statement('jobs.claim', ({ db }, now: number) =>
 * db.selectFrom('jobs')...where('run_at', '<=', now))`, then `claim.rows(tx, nowMs)`.
 */
export function statement<A extends unknown[], O>(
  name: string,
  build: (q: Builder, ...args: A) => Built<O>,
): Statement<A, O> {
  return new Statement(build, name);
}

/**
 * A statement whose arguments are one row's columns, by name (an insert of many columns): the
 * builder gets the row (each column a placeholder) and the caller passes a row with every column.
 * `rowStatement('events.insert', EVENT_COLUMNS, ({ db }, row: NewEventRow) =>
 * db.insertInto('events').values(row).returning('id'))`, then `insert.first(tx, row)`.
 */
export class RowStatement<R extends object, O> {
  private readonly inner: Statement<unknown[], O>;

  constructor(
    readonly name: string,
    private readonly columns: readonly (keyof R & string)[],
    build: (q: Builder, row: R) => Built<O>,
  ) {
    this.inner = new Statement<unknown[], O>(
      (q, ...args) => build(q, Object.fromEntries(columns.map((c, i) => [c, args[i]])) as R),
      name,
      columns.length,
    );
  }

  private args(row: R): unknown[] {
    const r = row as Record<string, unknown>;
    if (Object.keys(r).length !== this.columns.length) {
      throw new Error(`${this.name}: expected the columns ${this.columns.join(', ')}`);
    }
    return this.columns.map((c) => {
      if (r[c] === undefined) throw new Error(`${this.name}: no value for ${c}`);
      return r[c];
    });
  }

  compile(db: Database, row: R): CompiledQuery<O> {
    return this.inner.compile(db, ...this.args(row));
  }

  run(db: Database, row: R): Promise<QueryResult<O>> {
    return this.inner.run(db, ...this.args(row));
  }

  async first(db: Database, row: R): Promise<O | undefined> {
    return this.inner.first(db, ...this.args(row));
  }
}

/** A statement whose arguments are the named columns of one row (see RowStatement). */
export function rowStatement<R extends object, O>(
  name: string,
  columns: readonly (keyof R & string)[],
  build: (q: Builder, row: R) => Built<O>,
): RowStatement<R, O> {
  return new RowStatement(name, columns, build);
}
