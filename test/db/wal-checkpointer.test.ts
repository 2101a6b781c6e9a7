import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import {
  CHECKPOINTER_AFTER_WAL_BYTES,
  CHECKPOINTER_LOOK_EVERY,
  SAFETY_NET_PAGES,
  WalCheckpointer,
} from '../../src/db/wal-checkpointer.js';
import { DIALECT } from '../helpers/build-test-app.js';

/**
 * The WAL's checkpointer (src/db/wal-checkpointer.ts): once the WAL has grown to SQLite's own
 * threshold, a thread with its own connection copies the log into the database file, so no commit of the serving thread
 * pays for a checkpoint and its syncs. SQLite files only.
 */
const sqliteOnly = DIALECT === 'sqlite' ? it : it.skip;
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'stratus-ckpt-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const autocheckpoint = (db: SQLite.Database) => db.pragma('wal_autocheckpoint', { simple: true });

/** Writes about `pages` pages of 4 KiB in one transaction. */
function writePages(db: SQLite.Database, pages: number): void {
  const insert = db.prepare('insert into t (body) values (?)');
  db.transaction(() => {
    for (let i = 0; i < pages; i++) insert.run('x'.repeat(3900));
  })();
}

describe('WalCheckpointer', () => {
  sqliteOnly(
    'WalCheckpointer: past the threshold a thread checkpoints the WAL; the connection itself would not have',
    async () => {
      const file = path.join(tmp(), 'db.sqlite');
      const db = new SQLite(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('create table t (id integer primary key, body text)');
      db.pragma('wal_checkpoint(TRUNCATE)');
      const cp = new WalCheckpointer(db, file, {
        lookEvery: 1,
        afterWalBytes: 200 * 4096,
        everyMs: 20,
      });
      // Commits that write little leave the WAL small: no thread.
      for (let i = 0; i < 5; i++) db.prepare('insert into t (body) values (?)').run('small');
      cp.committed();
      expect(cp.running).toBe(false);
      expect(autocheckpoint(db)).toBe(1000);
      writePages(db, 300);
      cp.committed();
      expect(cp.running).toBe(true);
      expect(autocheckpoint(db)).toBe(SAFETY_NET_PAGES);

      // 300 pages: under SQLite's own threshold (1,000), so only the thread moves them.
      // The file grows as the checkpoint writes its pages: waited for until all are there.
      const before = statSync(file).size;
      const moved = () => statSync(file).size > before + 300 * 4096 * 0.9;
      for (let i = 0; i < 150 && !moved(); i++) await sleep(20);
      expect(statSync(file).size).toBeGreaterThan(before + 300 * 4096 * 0.9);
      for (let i = 0; i < 50 && cp.stats.frames === 0; i++) await sleep(20);
      expect(cp.stats.checkpoints).toBeGreaterThanOrEqual(1);
      expect(cp.stats.frames).toBeGreaterThanOrEqual(300);

      // A reader of its own sees every row (the copy changed nothing but where the pages are).
      const reader = new SQLite(file, { readonly: true });
      expect(reader.prepare('select count(*) as n from t').get()).toEqual({ n: 305 });
      reader.close();

      await cp.stop();
      expect(cp.running).toBe(false);
      db.close();
      // The last connection to close removes the WAL: the thread's connection was closed first.
      expect(existsSync(`${file}-wal`)).toBe(false);
    },
  );

  sqliteOnly(
    'WalCheckpointer: a thread that fails gives the connection its own checkpoints back',
    async () => {
      const dir = tmp();
      const file = path.join(dir, 'db.sqlite');
      const db = new SQLite(file);
      db.pragma('journal_mode = WAL');
      // The thread opens the file with fileMustExist: a path that is not there makes it fail.
      const cp = new WalCheckpointer(db, path.join(dir, 'missing.sqlite'));
      cp.start();
      expect(autocheckpoint(db)).toBe(SAFETY_NET_PAGES);
      for (let i = 0; i < 100 && cp.running; i++) await sleep(20);
      expect(cp.running).toBe(false);
      expect(autocheckpoint(db)).toBe(1000);
      db.close();
    },
  );

  sqliteOnly(
    "Database.connect: a SQLite file starts its checkpointer once its WAL has grown to SQLite's threshold, not on commits alone; close stops it",
    async () => {
      const file = path.join(tmp(), 'db.sqlite');
      const db = Database.connect(`sqlite:${file}`);
      const k = (d: Database) => d.db as unknown as Kysely<any>;
      await sql`create table t (id integer primary key, body text)`.execute(k(db));
      const commit = (rows: number, size: number) =>
        db.transaction(async (tx) => {
          for (let i = 0; i < rows; i++)
            await sql`insert into t (body) values (${'x'.repeat(size)})`.execute(k(tx));
        });
      // Many small commits (an idle server's job passes write about as little).
      for (let i = 0; i < 2 * CHECKPOINTER_LOOK_EVERY; i++) await commit(1, 10);
      expect(db.checkpointer?.running).toBe(false);
      // Enough for SQLite's own threshold: 64 commits of 20 rows of 4 KB (about 5 MB).
      const perCommit = 20 * 4_000;
      const commits = Math.ceil((CHECKPOINTER_AFTER_WAL_BYTES * 1.2) / perCommit);
      for (let i = 0; i < Math.max(commits, CHECKPOINTER_LOOK_EVERY); i++) await commit(20, 4_000);
      expect(db.checkpointer?.running).toBe(true);
      await db.close();
      expect(db.checkpointer?.running).toBe(false);
      expect(existsSync(`${file}-wal`)).toBe(false);
      // An in-memory database has no WAL and no checkpointer.
      const memory = Database.connect('sqlite::memory:');
      expect(memory.checkpointer).toBeUndefined();
      await memory.close();
    },
  );

  sqliteOnly(
    'Database.transaction: a write answered while the checkpointer runs survives a kill -9',
    async () => {
      const file = path.join(tmp(), 'db.sqlite');
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'wal-checkpointer-child.ts'), file],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('answered')) resolve();
        });
        child.on('exit', (code) => reject(new Error(`child exited (${code}) before answering`)));
      });
      const written = Number(/checkpointer running after (\d+) rows/.exec(out)?.[1]);
      expect(written).toBeGreaterThan(0);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const db = new SQLite(file, { readonly: true });
      expect(db.prepare("select count(*) as n from t where body = 'answered'").get()).toEqual({
        n: 1,
      });
      expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: written + 1 });
      db.close();
    },
  );
});
