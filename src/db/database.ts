import {
  CompiledQuery,
  type ColumnType,
  type Generated,
  Kysely,
  type SelectQueryBuilder,
  sql,
  type Transaction,
} from 'kysely';
import type { Dialect } from '../config/config.js';
import { isRetryableTxError } from '../errors/db-errors.js';
import { createDialect } from './dialect.js';
import { GroupCommit, type GroupLimits, type GroupStats } from './group-commit.js';
import type { DatabaseSchema } from './schema.js';
import type { WalCheckpointer } from './wal-checkpointer.js';

export type { ColumnType, Generated };

const DEFER_KEYS_OFF = 'pragma defer_foreign_keys = off';

type CommitHook = () => void | Promise<void>;

interface TxState {
  hooks: CommitHook[];
  /** Last statements of the transaction, one per key, run in key order just before COMMIT. */
  beforeCommit: Map<string, (tx: Database) => Promise<void>>;
  /** Savepoints opened so far (their names are numbered). */
  savepoints: number;
  /** SQLite: `deferForeignKeys` was asked for (switched off again when the work ends). */
  deferredKeys: boolean;
}

/**
 * A key for something a layer above keeps beside one database connection (a cache, say), shared by
 * the connection and its transactions. The database holds the value and knows nothing of it.
 */
export class DatabaseSlot<T> {
  declare private readonly _type: T;
  constructor(readonly name: string) {}
}

/** What one connection shares with its transactions. */
interface Shared {
  /** The URL it was opened with (a process may open more connections to it, e.g. to LISTEN). */
  url: string;
  /** SQLite: `PRAGMA data_version` of the connection (changes on other connections' commits). */
  dataVersion: (() => number) | undefined;
  slots: Map<DatabaseSlot<unknown>, unknown>;
  closeHooks: (() => Promise<void>)[];
  /** SQLite: the group commit every transaction of the connection goes through. */
  group: GroupCommit<DatabaseSchema> | undefined;
  /** SQLite file: the WAL's checkpointer thread, stopped before the connection closes. */
  checkpointer: WalCheckpointer | undefined;
}

/**
 * A small wrapper over Kysely: the dialect, transactions with before- and on-commit hooks, the
 * row-lock helper, and slots for what upper layers keep per connection. Repository functions take
 * a Database, so they work inside or outside a transaction.
 */
export class Database {
  private constructor(
    readonly db: Kysely<DatabaseSchema>,
    readonly dialect: Dialect,
    private readonly tx: TxState | undefined,
    private readonly shared: Shared,
  ) {}

  /**
   * `image`: the bytes a new SQLite database starts from (src/db/fresh-image.ts); ignored for a
   * SQLite file that exists already and for PostgreSQL. `group`: the limits of a group commit
   * (SQLite; see `transaction`). `statements`: PostgreSQL's named statements per connection
   * (src/db/dialect.ts; 0: none).
   */
  static connect(
    url: string,
    opts: { poolSize?: number; image?: Buffer; group?: GroupLimits; statements?: number } = {},
  ): Database {
    const handle = createDialect(url, opts);
    const db = new Kysely<DatabaseSchema>({ dialect: handle.kysely });
    return new Database(db, handle.dialect, undefined, {
      url,
      dataVersion: handle.dataVersion,
      slots: new Map(),
      closeHooks: [],
      group: handle.exec ? new GroupCommit(db, handle.exec, opts.group) : undefined,
      checkpointer: handle.checkpointer,
    });
  }

  get url(): string {
    return this.shared.url;
  }

  get dataVersion(): (() => number) | undefined {
    return this.shared.dataVersion;
  }

  /** The value kept in a slot of this connection, made by `create` on first use. */
  slot<T>(key: DatabaseSlot<T>, create: () => T): T {
    const slots = this.shared.slots as Map<DatabaseSlot<T>, T>;
    let v = slots.get(key);
    if (v === undefined) {
      v = create();
      slots.set(key, v);
    }
    return v;
  }

  /** Runs fn when the connection closes, before the pool ends (e.g. to close a listener). */
  onClose(fn: () => Promise<void>): void {
    this.shared.closeHooks.push(fn);
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
   *
   * On SQLite the transactions asked for at about the same moment share one SQLite transaction
   * and one COMMIT (group commit, src/db/group-commit.ts): fn and its before-commit hooks run
   * in a savepoint of their own, so a throw rolls back only this transaction (with its hooks);
   * the result comes, and the on-commit hooks run, only after the shared COMMIT. What a caller
   * sees is what a transaction of its own gives. PostgreSQL: a transaction of the pool's.
   */
  async transaction<T>(fn: (tx: Database) => Promise<T>, alone = false): Promise<T> {
    if (this.tx) return fn(this);
    for (let attempt = 1; ; attempt++) {
      const state: TxState = {
        hooks: [],
        beforeCommit: new Map(),
        savepoints: 0,
        deferredKeys: false,
      };
      // The work and, last, the before-commit hooks: inside the member's savepoint on SQLite,
      // so a hook that throws fails its own transaction and no other.
      const work = async (conn: Kysely<DatabaseSchema>) => {
        const tx = new Database(conn, this.dialect, state, this.shared);
        try {
          const out = await fn(tx);
          for (const key of [...state.beforeCommit.keys()].sort()) {
            await (state.beforeCommit.get(key) as (tx: Database) => Promise<void>)(tx);
          }
          return out;
        } finally {
          // The pragma holds for the connection until COMMIT, and a rollback to a savepoint
          // keeps it: the group's next members must be checked statement by statement.
          if (state.deferredKeys) await conn.executeQuery(CompiledQuery.raw(DEFER_KEYS_OFF));
        }
      };
      try {
        const result = this.shared.group
          ? await this.shared.group.run(work, alone)
          : await this.db.transaction().execute((trx: Transaction<DatabaseSchema>) => work(trx));
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
   * `transaction`, but on SQLite one that shares its COMMIT with no other and so runs in no
   * savepoint: for work that may change much of the database (a reset, an import, a closed
   * account's deletes), whose every changed page a savepoint would keep a copy of in memory
   * until the COMMIT (`GroupCommit.run`). Joins the current transaction if there is one.
   */
  transactionAlone<T>(fn: (tx: Database) => Promise<T>): Promise<T> {
    return this.transaction(fn, true);
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

  /**
   * Runs fn inside a savepoint of the current transaction: if fn throws, what it wrote is rolled
   * back, and so are the on-commit and before-commit hooks it registered, while the rest of the
   * transaction goes on; the error is rethrown. Throws outside a transaction.
   */
  async savepoint<T>(fn: (tx: Database) => Promise<T>): Promise<T> {
    const state = this.tx;
    if (!state) throw new Error('savepoint: expected to run inside a transaction');
    // A numbered name, fixed text: no query to build (a job batch opens one per step).
    const name = `sp_${++state.savepoints}`;
    const run = (text: string) => this.db.executeQuery(CompiledQuery.raw(text));
    const hooks = state.hooks.length;
    const keys = new Set(state.beforeCommit.keys());
    await run(`savepoint ${name}`);
    try {
      const out = await fn(this);
      await run(`release savepoint ${name}`);
      return out;
    } catch (err) {
      await run(`rollback to savepoint ${name}`);
      await run(`release savepoint ${name}`);
      state.hooks.length = hooks;
      for (const key of [...state.beforeCommit.keys()]) {
        if (!keys.has(key)) state.beforeCommit.delete(key);
      }
      throw err;
    }
  }

  /**
   * SQLite: foreign keys are checked when the transaction commits rather than at each statement,
   * for the rest of this transaction's work only (a reset deleting rows whatever their order).
   * Within a group commit the pragma is switched off again when this transaction's work ends,
   * so the group's other members are checked statement by statement as always (a violation this
   * work leaves would still fail the group's COMMIT, as it failed this transaction's before).
   * PostgreSQL: nothing to do (no caller needs it there). Throws outside a transaction.
   */
  async deferForeignKeys(): Promise<void> {
    if (!this.tx) throw new Error('deferForeignKeys: expected to run inside a transaction');
    if (this.dialect !== 'sqlite') return;
    this.tx.deferredKeys = true;
    await this.db.executeQuery(CompiledQuery.raw('pragma defer_foreign_keys = on'));
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

  /** SQLite: how many groups have committed, with how many transactions (tests, the bench). */
  get groupStats(): GroupStats | undefined {
    return this.shared.group?.stats;
  }

  /** SQLite file: the WAL's checkpointer (tests, the bench). */
  get checkpointer(): WalCheckpointer | undefined {
    return this.shared.checkpointer;
  }

  async close(): Promise<void> {
    for (const hook of this.shared.closeHooks.splice(0)) await hook();
    await this.shared.group?.idle();
    await this.shared.checkpointer?.stop();
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
