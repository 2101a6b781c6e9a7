import {
  type ColumnType,
  type Generated,
  Kysely,
  type SelectQueryBuilder,
  sql,
  type Transaction,
} from 'kysely';
import { PrincipalCache } from '../auth/principal-cache.js';
import type { Dialect } from '../config/config.js';
import { isRetryableTxError } from '../errors/db-errors.js';
import { createDialect } from './dialect.js';
import type { DatabaseSchema } from './schema.js';

export type { ColumnType, Generated };

type CommitHook = () => void | Promise<void>;

interface TxState {
  hooks: CommitHook[];
  /** Last statements of the transaction, one per key, run in key order just before COMMIT. */
  beforeCommit: Map<string, (tx: Database) => Promise<void>>;
}

/**
 * A small wrapper over Kysely: the dialect, transactions with on-commit hooks, and the row-lock
 * helper. Repository functions take a Database, so they work inside or outside a transaction.
 */
export class Database {
  private constructor(
    readonly db: Kysely<DatabaseSchema>,
    readonly dialect: Dialect,
    private readonly tx: TxState | undefined,
    /** Resolved bearer tokens (src/auth/principal-cache.ts), shared with transactions. */
    readonly principals: PrincipalCache,
  ) {}

  static connect(url: string, opts: { poolSize?: number } = {}): Database {
    const handle = createDialect(url, opts);
    const principals = new PrincipalCache({
      dialect: handle.dialect,
      ...(handle.dialect === 'postgres' ? { url } : {}),
      ...(handle.dataVersion ? { dataVersion: handle.dataVersion } : {}),
    });
    return new Database(
      new Kysely<DatabaseSchema>({ dialect: handle.kysely }),
      handle.dialect,
      undefined,
      principals,
    );
  }

  get isTransaction(): boolean {
    return this.tx !== undefined;
  }

  assertTransaction(): void {
    if (!this.tx) throw new Error('expected to run inside a transaction');
  }

  /**
   * Runs fn in a transaction (joining the current one if there is one). Serialization failures
   * and deadlocks are retried; hooks registered with onCommit run after the commit.
   */
  async transaction<T>(fn: (tx: Database) => Promise<T>): Promise<T> {
    if (this.tx) return fn(this);
    for (let attempt = 1; ; attempt++) {
      const state: TxState = { hooks: [], beforeCommit: new Map() };
      try {
        const result = await this.db
          .transaction()
          .execute(async (trx: Transaction<DatabaseSchema>) => {
            const tx = new Database(trx, this.dialect, state, this.principals);
            const out = await fn(tx);
            for (const key of [...state.beforeCommit.keys()].sort()) {
              await (state.beforeCommit.get(key) as (tx: Database) => Promise<void>)(tx);
            }
            return out;
          });
        for (const hook of state.hooks) await hook();
        return result;
      } catch (err) {
        if (attempt < 5 && isRetryableTxError(err)) {
          await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 20));
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * Runs fn as the last statement of the current transaction, once per key however often it is
   * asked for, keys in sorted order. For rows that every writer of something updates (the events
   * feed's version): taken last, their row locks are held only for the commit and never while
   * waiting for another lock, so they add no deadlocks. Throws outside a transaction.
   */
  beforeCommit(key: string, fn: (tx: Database) => Promise<void>): void {
    if (!this.tx) throw new Error('beforeCommit: expected to run inside a transaction');
    if (!this.tx.beforeCommit.has(key)) this.tx.beforeCommit.set(key, fn);
  }

  /** Runs fn after the transaction commits (at once when there is none). */
  onCommit(fn: CommitHook): void {
    if (this.tx) this.tx.hooks.push(fn);
    else void Promise.resolve().then(fn);
  }

  /**
   * Locks the selected rows until the transaction ends (PostgreSQL). SQLite needs no lock:
   * a write transaction there already excludes every other writer.
   */
  forUpdate<DB, TB extends keyof DB, O>(
    qb: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O> {
    return this.dialect === 'postgres' && this.tx ? qb.forUpdate() : qb;
  }

  /** Refreshes planner statistics (SQLite; PostgreSQL's autovacuum does it). Call now and then. */
  async maintain(): Promise<void> {
    if (this.dialect === 'sqlite') await sql`pragma optimize`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.principals.close();
    await this.db.destroy();
  }
}

/** Booleans are stored as 0/1 integers on both engines. */
export const toBool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const fromBool = (b: boolean): number => (b ? 1 : 0);

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}
