import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

describe('Database.transaction', () => {
  let t: TestApp;
  let db: Database;
  beforeAll(async () => {
    t = await buildTestApp();
    db = t.ctx.db;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A copy of the first region under a new id: a row the tests below write and drop. */
  const insert = async (tx: Database, id: string) =>
    tx.db
      .insertInto('regions')
      .values({
        ...(await tx.db.selectFrom('regions').selectAll().executeTakeFirstOrThrow()),
        id,
      })
      .execute();

  /** How many regions the transaction sees: what the hooks below observe. */
  const regions = async (d: Database) =>
    Number(
      (await sql<{ n: number | string }>`select count(*) as n from regions`.execute(d.db)).rows[0]
        ?.n,
    );

  it('beforeCommit: runs once per key, in key order, after the work and inside the transaction', async () => {
    const calls: string[] = [];
    const before = await regions(db);
    await db.transaction(async (tx) => {
      tx.beforeCommit('b', async (inner) => {
        calls.push(`b:${await regions(inner)}`);
      });
      tx.beforeCommit('a', async () => {
        calls.push('a');
      });
      tx.beforeCommit('b', async () => {
        calls.push('b again');
      });
      await tx.transaction(async (joined) => {
        joined.beforeCommit('a', async () => {
          calls.push('a again');
        });
      });
      await tx.db
        .insertInto('regions')
        .values({
          ...(await tx.db.selectFrom('regions').selectAll().executeTakeFirstOrThrow()),
          id: 'zz-test-1',
        })
        .execute();
    });
    // The insert (the last of the work) is seen by the hook, which ran before the commit.
    expect(calls).toEqual(['a', `b:${before + 1}`]);
    await db.db.deleteFrom('regions').where('id', '=', 'zz-test-1').execute();
  });

  it('beforeCommit: a failing hook rolls the transaction back; a failed transaction runs none', async () => {
    const before = await regions(db);
    await expect(
      db.transaction(async (tx) => {
        await insert(tx, 'zz-test-2');
        tx.beforeCommit('x', async () => {
          throw new Error('hook failed');
        });
      }),
    ).rejects.toThrow('hook failed');
    expect(await regions(db)).toBe(before);
    let ran = false;
    await expect(
      db.transaction(async (tx) => {
        tx.beforeCommit('x', async () => {
          ran = true;
        });
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(ran).toBe(false);
  });

  it('savepoint: a failed savepoint drops its rows and its hooks; the transaction’s others commit', async () => {
    const before = await regions(db);
    const calls: string[] = [];
    await db.transaction(async (tx) => {
      await tx.savepoint(async (sp) => {
        await insert(sp, 'zz-sp-kept');
        sp.onCommit(() => void calls.push('kept'));
        sp.beforeCommit('kept', async () => void calls.push('before kept'));
      });
      await expect(
        tx.savepoint(async (sp) => {
          await insert(sp, 'zz-sp-dropped');
          sp.onCommit(() => void calls.push('dropped'));
          sp.beforeCommit('dropped', async () => void calls.push('before dropped'));
          throw new Error('step broke');
        }),
      ).rejects.toThrow('step broke');
      // The transaction goes on after the rollback to the savepoint.
      expect(await regions(tx)).toBe(before + 1);
    });
    expect(calls).toEqual(['before kept', 'kept']);
    const ids = await db.db
      .selectFrom('regions')
      .select('id')
      .where('id', 'like', 'zz-sp-%')
      .execute();
    expect(ids.map((r) => r.id)).toEqual(['zz-sp-kept']);
    await db.db.deleteFrom('regions').where('id', '=', 'zz-sp-kept').execute();
    await expect(db.savepoint(async () => 1)).rejects.toThrow(/inside a transaction/);
  });

  it('beforeCommit: outside a transaction it is a programming error', () => {
    expect(() => db.beforeCommit('x', async () => {})).toThrow(/inside a transaction/);
  });
});
