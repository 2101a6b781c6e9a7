import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';

/**
 * Group commit (SQLite, src/db/group-commit.ts): transactions asked for at the same moment share
 * one SQLite transaction and one COMMIT, each member in a savepoint of its own. What a caller of
 * `Database.transaction` sees stays what a transaction of its own gives; the tests that say so
 * run on PostgreSQL too, where every transaction is the pool's own.
 */

const k = (d: Database) => d.db as unknown as Kysely<any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sqliteOnly = DIALECT === 'sqlite' ? it : it.skip;

/**
 * Calls `seen` with the text of every execution of a prepared statement on SQLite
 * (better-sqlite3's Statement, shared by every connection of the process); returns the undo.
 */
function onEachRun(seen: (text: string) => void): () => void {
  const SQLite = createRequire(import.meta.url)('better-sqlite3');
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  const run = proto.run;
  proto.run = function seenRun(this: { source: string }, ...args: unknown[]) {
    seen(this.source);
    return run.apply(this, args);
  };
  return () => {
    proto.run = run;
  };
}

/** Counts the COMMITs sent on SQLite: every statement whose text starts with `commit`. */
function spyCommits(): { count: () => number; restore: () => void } {
  let n = 0;
  const restore = onEachRun((text) => {
    if (/^\s*commit/i.test(text)) n++;
  });
  return { count: () => n, restore };
}

describe('group commit', () => {
  let dir = '';
  let url = '';
  let db: Database;
  /** A second connection: what another process sees (committed rows only). */
  let other: Database;
  let dropDb: () => Promise<void> = async () => {};
  let commits: ReturnType<typeof spyCommits>;

  beforeAll(async () => {
    if (DIALECT === 'postgres') {
      const admin = inject('pgAdminUrl');
      const name = `gc_${randomBytes(6).toString('hex')}`;
      url = await createDatabase(admin, name);
      dropDb = () => dropDatabase(admin, name);
    } else {
      dir = mkdtempSync(path.join(tmpdir(), 'stratus-group-commit-'));
      url = `sqlite:${path.join(dir, 'gc.db')}`;
    }
    // No limit of time here (a loaded machine may take more than the default few ms per group);
    // the limits have a test of their own.
    db = Database.connect(url, { poolSize: 8, group: { members: 64, ms: 60_000 } });
    other = Database.connect(url, { poolSize: 1 });
    await sql`create table gc (id integer primary key, who text not null)`.execute(k(db));
    commits = spyCommits();
  });

  afterAll(async () => {
    commits?.restore();
    await other?.close();
    await db?.close();
    await dropDb();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await sql`delete from gc`.execute(k(db));
  });

  const insert = (tx: Database, who: string) =>
    sql`insert into gc (id, who) values (${1 + Math.floor(Math.random() * 1e9)}, ${who})`.execute(
      k(tx),
    );
  /** Who has a row, as a connection sees it. */
  const stored = async (on: Database = other) =>
    (await sql<{ who: string }>`select who from gc order by who`.execute(k(on))).rows.map(
      (r) => r.who,
    );

  sqliteOnly('transaction: transactions asked for at once share one COMMIT', async () => {
    const before = commits.count();
    const names = Array.from({ length: 10 }, (_, i) => `t${i}`);
    const out = await Promise.all(
      names.map((who) =>
        db.transaction(async (tx) => {
          await insert(tx, who);
          return who;
        }),
      ),
    );
    expect(out).toEqual(names);
    expect(commits.count() - before).toBe(1);
    expect(await stored()).toEqual(names);
  });

  it('transaction: a member that throws is rolled back alone; the others commit; a read outside waits for the COMMIT', async () => {
    const before = commits.count();
    const a = db.transaction(async (tx) => {
      await insert(tx, 'a');
      return 'a';
    });
    const b = db.transaction(async (tx) => {
      await insert(tx, 'b');
      // A read outside any transaction, asked for while b's row is written but not committed.
      reading = stored(db);
      await sleep(30);
      throw new Error('b broke');
    });
    let reading: Promise<string[]> | undefined;
    const c = db.transaction(async (tx) => {
      await insert(tx, 'c');
      return 'c';
    });
    const settled = await Promise.allSettled([a, b, c]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual([
      'a',
      'Error: b broke',
      'c',
    ]);
    expect(await stored()).toEqual(['a', 'c']);
    // Never b's row: the read waited for the connection (or, on PostgreSQL, saw committed rows).
    expect(await reading).not.toContain('b');
    if (DIALECT === 'sqlite') expect(commits.count() - before).toBe(1);
  });

  it('transaction: a member resolves, and its on-commit hooks run, only after the COMMIT that stored it (never for a failed member)', async () => {
    const calls: string[] = [];
    const seen: Record<string, string[]> = {};
    const member = (who: string, o: { slow?: boolean; fail?: boolean } = {}) =>
      db
        .transaction(async (tx) => {
          await insert(tx, who);
          tx.onCommit(async () => {
            calls.push(`hook ${who}`);
            // What another connection sees when the hook runs: the row is committed. A hook may
            // start a transaction of its own (it joins a later group: no deadlock).
            seen[who] = await stored();
            await db.transaction(async (t2) => insert(t2, `${who}-after`));
          });
          if (o.slow) await sleep(50);
          if (o.fail) throw new Error(`${who} broke`);
          return who;
        })
        .then(
          async (v) => {
            calls.push(`resolved ${v}`);
            seen[`${who} answered`] = await stored();
          },
          (err: Error) => void calls.push(`rejected ${err.message}`),
        );
    // b first: the first member of a group has no savepoint; its failure restarts the transaction.
    await Promise.all([member('b', { fail: true }), member('a'), member('c', { slow: true })]);
    expect(calls).toContain('rejected b broke');
    expect(calls).not.toContain('hook b');
    for (const who of ['a', 'c']) {
      expect(calls.indexOf(`hook ${who}`)).toBeGreaterThanOrEqual(0);
      expect(calls.indexOf(`hook ${who}`)).toBeLessThan(calls.indexOf(`resolved ${who}`));
    }
    expect(seen.a).toContain('a');
    if (DIALECT === 'sqlite') {
      // a and c share the COMMIT: by the time a's hook runs and a answers, c (slower, in the same
      // group) is stored too. On PostgreSQL a commits on its own, before c.
      expect(seen.a).toContain('c');
      expect(seen['a answered']).toContain('c');
    }
    expect(await stored()).toEqual(['a', 'a-after', 'c', 'c-after']);
  });

  it('transaction: a before-commit hook that throws fails its own transaction only', async () => {
    const before = commits.count();
    const order: string[] = [];
    const member = (who: string, hook: 'throws' | 'ok') =>
      db.transaction(async (tx) => {
        tx.beforeCommit('feed', async (inner) => {
          order.push(who);
          if (hook === 'throws') throw new Error(`${who} hook failed`);
          await insert(inner, `${who}-hook`);
        });
        await insert(tx, who);
        return who;
      });
    const settled = await Promise.allSettled([
      member('a', 'ok'),
      member('b', 'throws'),
      member('c', 'ok'),
    ]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual([
      'a',
      'Error: b hook failed',
      'c',
    ]);
    // Each member's own hook, once per key per transaction, after its own work.
    expect([...order].sort()).toEqual(['a', 'b', 'c']);
    expect(await stored()).toEqual(['a', 'a-hook', 'c', 'c-hook']);
    if (DIALECT === 'sqlite') expect(commits.count() - before).toBe(1);
  });

  it('transaction: a nested transaction and the job runner’s savepoints join the member; names do not clash', async () => {
    const before = commits.count();
    const member = (who: string) =>
      db.transaction(async (tx) => {
        await tx.transaction(async (joined) => insert(joined, `${who}-nested`));
        await tx.savepoint(async (sp) => insert(sp, `${who}-step1`));
        await expect(
          tx.savepoint(async (sp) => {
            await insert(sp, `${who}-step2`);
            throw new Error('step broke');
          }),
        ).rejects.toThrow('step broke');
        await tx.savepoint(async (sp) => insert(sp, `${who}-step3`));
      });
    await Promise.all([member('a'), member('b')]);
    expect(await stored()).toEqual([
      'a-nested',
      'a-step1',
      'a-step3',
      'b-nested',
      'b-step1',
      'b-step3',
    ]);
    if (DIALECT === 'sqlite') expect(commits.count() - before).toBe(1);
  });

  it('deferForeignKeys: holds for its own transaction only; the next ones are checked statement by statement', async () => {
    await sql`create table gc_parent (id integer primary key)`.execute(k(db));
    await sql`create table gc_child (id integer primary key, parent integer not null references gc_parent (id))`.execute(
      k(db),
    );
    try {
      await sql`insert into gc_parent (id) values (1)`.execute(k(db));
      await sql`insert into gc_child (id, parent) values (1, 1)`.execute(k(db));
      const reset = db.transaction(async (tx) => {
        await tx.deferForeignKeys();
        // SQLite: parent first, child after, fine once both are gone at the COMMIT. PostgreSQL
        // (nothing deferred there): child first.
        const tables = DIALECT === 'sqlite' ? ['gc_parent', 'gc_child'] : ['gc_child', 'gc_parent'];
        for (const t of tables) await sql`delete from ${sql.id(t)}`.execute(k(tx));
        return 'reset';
      });
      // Asked for at the same moment: the same group on SQLite. Its own statement fails at once
      // (not at the group's COMMIT, which would fail the reset too).
      const next = db.transaction(async (tx) => {
        await insert(tx, 'next');
        try {
          await tx.savepoint((sp) =>
            sql`insert into gc_child (id, parent) values (2, 99)`.execute(k(sp)),
          );
          return 'inserted';
        } catch (err) {
          return (err as { code?: string }).code ?? String(err);
        }
      });
      expect(await reset).toBe('reset');
      expect(await next).toMatch(/FOREIGN|23503/);
      expect(await stored()).toEqual(['next']);
    } finally {
      await sql`drop table gc_child`.execute(k(db));
      await sql`drop table gc_parent`.execute(k(db));
    }
    await expect(db.deferForeignKeys()).rejects.toThrow(/inside a transaction/);
  });

  sqliteOnly(
    'transaction: a failed COMMIT fails every member of the group, and stores none',
    async () => {
      // A deferred foreign key, checked only at COMMIT: the group's COMMIT fails.
      await sql`create table gc_parent (id integer primary key)`.execute(k(db));
      await sql`create table gc_child (id integer primary key, parent integer references gc_parent (id) deferrable initially deferred)`.execute(
        k(db),
      );
      try {
        const before = commits.count();
        const settled = await Promise.allSettled([
          db.transaction(async (tx) => insert(tx, 'a')),
          db.transaction(async (tx) => {
            await sql`insert into gc_child (id, parent) values (1, 99)`.execute(k(tx));
          }),
          db.transaction(async (tx) => insert(tx, 'c')),
        ]);
        expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
        for (const s of settled) {
          expect((s as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
        }
        expect(commits.count() - before).toBe(1);
        expect(await stored()).toEqual([]);
        // The connection is usable again: the next group commits.
        await db.transaction(async (tx) => insert(tx, 'd'));
        expect(await stored()).toEqual(['d']);
      } finally {
        await sql`drop table gc_child`.execute(k(db));
        await sql`drop table gc_parent`.execute(k(db));
      }
    },
  );

  sqliteOnly(
    'transactionAlone: a group of its own, in no savepoint; the transactions around it share theirs',
    async () => {
      const sent: string[] = [];
      const restore = onEachRun((text) => sent.push(text.trim().toLowerCase()));
      try {
        const before = commits.count();
        await Promise.all([
          db.transaction(async (tx) => insert(tx, 'a')),
          db.transaction(async (tx) => insert(tx, 'b')),
          db.transactionAlone(async (tx) => {
            await sql`insert into gc (who, id) values ('alone', 7)`.execute(k(tx));
          }),
          db.transaction(async (tx) => insert(tx, 'd')),
          db.transaction(async (tx) => insert(tx, 'e')),
        ]);
        // a and b; the alone one; d and e.
        expect(commits.count() - before).toBe(3);
        expect(await stored()).toEqual(['a', 'alone', 'b', 'd', 'e']);
        const at = sent.findIndex((text) => text.startsWith('insert into gc (who, id)'));
        expect(sent.slice(at - 1, at + 2)).toEqual([
          'begin immediate',
          "insert into gc (who, id) values ('alone', 7)",
          'commit',
        ]);
      } finally {
        restore();
      }
    },
  );

  sqliteOnly(
    'connection: a savepoint keeps its pages in memory, not in a temporary file',
    async () => {
      const mode = await sql<{ temp_store: number }>`pragma temp_store`.execute(k(db));
      // 2: MEMORY (0 would be the build's default, a file).
      expect(mode.rows[0]?.temp_store).toBe(2);
    },
  );

  sqliteOnly('transaction: a group ends at its limit of members or of time', async () => {
    const capped = Database.connect(url, { group: { members: 3, ms: 50 } });
    try {
      let before = commits.count();
      await Promise.all(
        Array.from({ length: 7 }, (_, i) => capped.transaction(async (tx) => insert(tx, `m${i}`))),
      );
      // 3 + 3 + 1.
      expect(commits.count() - before).toBe(3);
      expect(capped.groupStats?.largest).toBe(3);
      before = commits.count();
      const order: string[] = [];
      await Promise.all([
        capped.transaction(async (tx) => {
          await insert(tx, 'slow');
          await sleep(60);
          order.push('slow');
        }),
        capped.transaction(async (tx) => {
          await insert(tx, 'next');
          order.push('next');
        }),
      ]);
      // The first member's work took longer than the group's time: the second waits for the next.
      expect(commits.count() - before).toBe(2);
      expect(order).toEqual(['slow', 'next']);
      expect((await stored()).length).toBe(9);
    } finally {
      await capped.close();
    }
  });

  sqliteOnly(
    'transaction: a member answers only after the COMMIT of its group (kill -9 at the answer loses nothing)',
    async () => {
      await sql`delete from gc`.execute(k(db));
      const file = path.join(dir, 'gc.db');
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'group-commit-child.ts'), file],
        { cwd: path.resolve(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
      });
      const exited = new Promise((r) => child.once('exit', r));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          if (String(d).includes('answered')) {
            // At once: the quick transaction's caller has its answer.
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.once('exit', () => reject(new Error(`child exited before answering: ${err}`)));
      });
      await exited;
      // The quick one is stored, and so is the slow one of its group: the answer came only after
      // the group's COMMIT (a transaction of its own would have answered before the slow one's).
      expect(await stored()).toEqual(['quick', 'slow']);
    },
  );
});
