import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  type Dialect as KyselyDialect,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  SqliteDialect,
} from 'kysely';
import type PgModule from 'pg';
import type { Dialect } from '../config/config.js';
import { isStalePlan } from '../errors/db-errors.js';
import { WalCheckpointer } from './wal-checkpointer.js';

let pgModule: typeof PgModule | undefined;

/**
 * The `pg` driver, loaded on first use: a process on SQLite never loads it (a shorter start).
 * bigint (int8) and numeric come back as strings by default; every such value we store fits a
 * double, so both are parsed as numbers.
 */
export function pg(): typeof PgModule {
  if (!pgModule) {
    pgModule = createRequire(import.meta.url)('pg') as typeof PgModule;
    pgModule.types.setTypeParser(20, (v) => Number(v));
    pgModule.types.setTypeParser(1700, (v) => Number(v));
  }
  return pgModule;
}

export interface DialectHandle {
  dialect: Dialect;
  kysely: KyselyDialect;
  /**
   * SQLite: `PRAGMA data_version` of the connection, which changes when another connection
   * (another process) commits. Read directly, outside Kysely's connection mutex: it is a
   * read-only, connection-level value.
   */
  dataVersion?: () => number;
  /**
   * SQLite: runs a statement of fixed text with no result (BEGIN, SAVEPOINT, COMMIT) straight on
   * the connection, kept prepared (the connection's statement cache). Only for a caller that holds the connection (Kysely's
   * connection mutex): the group commit.
   */
  exec?: (text: string) => void;
  /** SQLite file: the WAL's checkpointer thread (src/db/wal-checkpointer.ts). */
  checkpointer?: WalCheckpointer;
}

export function sqliteFileOf(url: string): string {
  return url.slice('sqlite:'.length);
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; preparing is a fifth of a small request's
 * cost. Statements are reusable, so keep the most recent ones by SQL text.
 */
function withStatementCache(db: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SQLite.Statement {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql);
      } else {
        stmt = db.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
      }
      cache.set(sql, stmt);
      return stmt;
    },
  };
}

/** The header's file format versions (bytes 18 and 19) of a database in WAL mode. */
const WAL_FORMAT = Buffer.from([2, 2]);

/**
 * Writes a new SQLite file from an image, unless the file exists: written aside, then linked to
 * its name, so a process starting at the same moment finds either no file or the whole image.
 * The file is written in WAL mode (its header's versions as 2): its first open then skips
 * switching it (about 2.5 ms). The image itself stays as it was made: an in-memory database
 * cannot be in WAL mode. Whether this made the file.
 */
function createFromImage(file: string, image: Buffer): boolean {
  if (fs.existsSync(file)) return false;
  const aside = `${file}.${process.pid}.${Date.now()}.new`;
  try {
    const fd = fs.openSync(aside, 'wx');
    try {
      fs.writeSync(fd, image);
      fs.writeSync(fd, WAL_FORMAT, 0, 2, 18);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(aside, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** Named statements a PostgreSQL connection keeps (the most recently used ones, by SQL text). */
export const PREPARED_PER_CONNECTION = 500;

/** A statement worth preparing: one data statement (a text with `;` may hold several). */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

type PgClient = PgModule.PoolClient & {
  connection?: { parsedStatements?: Record<string, string> };
  getTransactionStatus?: () => string | null;
};

const NAMED = Symbol('stratus.namedStatements');

/**
 * PostgreSQL parses, analyses and plans every statement of the extended protocol anew unless it
 * is named. Each connection names the statements it runs by their SQL text (`s1`, `s2`, …, never
 * reused), so the server parses each once per connection and, after a few runs, keeps its plan;
 * the least recently used are deallocated beyond `max`. A text that holds a `;` (a script run
 * through the simple query protocol) and transaction control are sent as they are.
 */
export function namedStatements(client: PgClient, max = PREPARED_PER_CONNECTION): PgClient {
  const tagged = client as PgClient & { [NAMED]?: true };
  if (tagged[NAMED]) return client;
  tagged[NAMED] = true;
  const names = new Map<string, string>();
  let next = 0;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const forget = async (text: string, name: string) => {
    names.delete(text);
    delete client.connection?.parsedStatements?.[name];
    await (query(`deallocate ${name}`) as Promise<unknown>).catch(() => undefined);
  };
  const named = async (text: string, values: unknown[], again = true): Promise<unknown> => {
    let name = names.get(text);
    if (name !== undefined) {
      names.delete(text);
    } else {
      const oldest = names.size >= max ? names.entries().next().value : undefined;
      if (oldest) await forget(oldest[0], oldest[1]);
      name = `s${++next}`;
    }
    names.set(text, name);
    // Outside a transaction a refused statement can simply run again.
    const alone = client.getTransactionStatus?.() === 'I';
    try {
      return await (query({ name, text, values }) as Promise<unknown>);
    } catch (err) {
      if (!isStalePlan(err)) throw err;
      // A kept plan whose result changed under it (a column added since): parsed again next
      // time. In a transaction the error stands (the transaction is aborted); Database.transaction
      // runs the transaction again (isRetryableTxError).
      await forget(text, name);
      if (!alone || !again) throw err;
      return named(text, values, false);
    }
  };
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (
      args.length === 2 &&
      typeof text === 'string' &&
      Array.isArray(values) &&
      PREPARABLE.test(text) &&
      !text.includes(';')
    ) {
      return named(text, values);
    }
    return query(...args);
  };
  return client;
}

/** The pool as Kysely sees it, its connections naming their statements. */
function preparingPool(pool: PgModule.Pool, max: number): PostgresPool {
  return {
    connect: async () =>
      namedStatements((await pool.connect()) as PgClient, max) as unknown as PostgresPoolClient,
    end: () => pool.end(),
  };
}

/** Builds the Kysely dialect for a database URL (sqlite:<file>|:memory: or postgres://). */
export function createDialect(
  url: string,
  opts: { poolSize?: number; image?: Buffer; statements?: number } = {},
): DialectHandle {
  if (url.startsWith('sqlite:')) {
    const file = sqliteFileOf(url);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const memory = file === ':memory:';
    // A database this connection makes from the image has only empty tables.
    const fromImage =
      opts.image !== undefined && (memory || createFromImage(path.resolve(file), opts.image));
    const db = opts.image && memory ? new SQLite(opts.image) : new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Another process (the admin CLI, a worker) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    // A savepoint's statement journal in memory, not in a temporary file: every member of a
    // group commit is a savepoint (src/db/group-commit.ts), and SQLite copies into that journal
    // each page a savepoint changes first. In a file that was a `pwrite` per page, about 40% of
    // the server's CPU under creates. Work that changes much of the database runs alone, in no
    // savepoint (`Database.transactionAlone`), so the journal stays a few pages.
    db.pragma('temp_store = MEMORY');
    // Table statistics let the planner pick the selective index (events by entity, say);
    // without them it may scan a whole table. Cheap when nothing changed (SQLite 3.46+), but
    // about 6 ms on a database just made from the image, whose tables are all empty: there is
    // nothing to measure yet (the close's `pragma optimize` and the next start measure them).
    if (!fromImage) db.pragma('optimize = 0x10002');
    const dataVersion = db.prepare('pragma data_version').pluck();
    // One cache of prepared statements for Kysely's queries and the group commit's BEGIN,
    // SAVEPOINT and COMMIT.
    const cached = withStatementCache(db);
    const checkpointer = memory ? undefined : new WalCheckpointer(db, path.resolve(file));
    return {
      dialect: 'sqlite',
      kysely: new SqliteDialect({ database: cached }),
      dataVersion: () => dataVersion.get() as number,
      exec: (text) => {
        cached.prepare(text).run();
        if (text === 'commit') checkpointer?.committed();
      },
      checkpointer,
    };
  }
  const pool = new (pg().Pool)({ connectionString: url, max: opts.poolSize ?? 10 });
  // An idle client's error (server restart) must not crash the process.
  pool.on('error', () => {});
  const named = opts.statements ?? PREPARED_PER_CONNECTION;
  return {
    dialect: 'postgres',
    kysely: new PostgresDialect({ pool: named > 0 ? preparingPool(pool, named) : pool }),
  };
}
