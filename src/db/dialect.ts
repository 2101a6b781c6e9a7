import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type Dialect as KyselyDialect, PostgresDialect, SqliteDialect } from 'kysely';
import type PgModule from 'pg';
import type { Dialect } from '../config/config.js';

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
   * the connection, prepared once. Only for a caller that holds the connection (Kysely's
   * connection mutex): the group commit.
   */
  exec?: (text: string) => void;
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

/**
 * Writes a new SQLite file from an image, unless the file exists: written aside, then linked to
 * its name, so a process starting at the same moment finds either no file or the whole image.
 */
function createFromImage(file: string, image: Buffer): void {
  if (fs.existsSync(file)) return;
  const aside = `${file}.${process.pid}.${Date.now()}.new`;
  fs.writeFileSync(aside, image);
  try {
    fs.linkSync(aside, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** Builds the Kysely dialect for a database URL (sqlite:<file>|:memory: or postgres://). */
export function createDialect(
  url: string,
  opts: { poolSize?: number; image?: Buffer } = {},
): DialectHandle {
  if (url.startsWith('sqlite:')) {
    const file = sqliteFileOf(url);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    if (opts.image && file !== ':memory:') createFromImage(path.resolve(file), opts.image);
    const db = opts.image && file === ':memory:' ? new SQLite(opts.image) : new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Another process (the admin CLI, a worker) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    // Table statistics let the planner pick the selective index (events by entity, say);
    // without them it may scan a whole table. Cheap when nothing changed (SQLite 3.46+).
    db.pragma('optimize = 0x10002');
    const dataVersion = db.prepare('pragma data_version').pluck();
    const fixed = new Map<string, SQLite.Statement>();
    return {
      dialect: 'sqlite',
      kysely: new SqliteDialect({ database: withStatementCache(db) }),
      dataVersion: () => dataVersion.get() as number,
      exec: (text) => {
        let stmt = fixed.get(text);
        if (!stmt) {
          stmt = db.prepare(text);
          fixed.set(text, stmt);
        }
        stmt.run();
      },
    };
  }
  const pool = new (pg().Pool)({ connectionString: url, max: opts.poolSize ?? 10 });
  // An idle client's error (server restart) must not crash the process.
  pool.on('error', () => {});
  return { dialect: 'postgres', kysely: new PostgresDialect({ pool }) };
}
