import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { rowStatement, statement } from '../../src/db/statement.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

describe('statement', () => {
  let t: TestApp;
  let db: Database;
  beforeAll(async () => {
    t = await buildTestApp();
    db = t.ctx.db;
  });
  afterAll(async () => {
    await t.close();
  });

  /** An insert with arguments, constants (null, 0, a literal status) and a RETURNING. */
  const buildInsertJob = (
    db: Kysely<DatabaseSchema>,
    name: string,
    runAt: number,
    accountId: number | null,
  ) =>
    db
      .insertInto('jobs')
      .values({
        name,
        payload: '{}',
        status: 'queued',
        run_at: runAt,
        attempts: 0,
        max_attempts: 3,
        locked_by: null,
        locked_until: null,
        last_error: null,
        account_id: accountId,
        entity_type: null,
        entity_id: null,
        created: '2026-01-01T00:00:00',
        updated: '2026-01-01T00:00:00',
      })
      .returning(['id', 'name', 'run_at', 'account_id']);
  /** Built once, sent with each call's arguments. */
  const insertJob = statement(
    'test.insertJob',
    ({ db }, name: string, runAt: number, accountId: number | null) =>
      buildInsertJob(db, name, runAt, accountId),
  );
  /** The same statement built by Kysely at each call. */
  const insertJobKysely = (d: Database, name: string, runAt: number, accountId: number | null) =>
    buildInsertJob(d.db, name, runAt, accountId);

  /** An argument used twice, an expression, a `sql` template value and a limit. */
  const due = statement('test.due', ({ db }, now: number, name: string, limit: number) =>
    db
      .selectFrom('jobs')
      .select(['id', 'name'])
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('name', '=', name), eb('last_error', '=', name)]))
      .where(sql<boolean>`run_at + ${1} > ${now} - 1000000000000`)
      .orderBy('id')
      .limit(limit),
  );
  const dueKysely = (d: Database, now: number, name: string, limit: number) =>
    d.db
      .selectFrom('jobs')
      .select(['id', 'name'])
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('name', '=', name), eb('last_error', '=', name)]))
      .where(sql<boolean>`run_at + ${1} > ${now} - 1000000000000`)
      .orderBy('id')
      .limit(limit);

  it('statement: sends the SQL and parameters Kysely would build, arguments in their places', () => {
    const cases: [string, number, number | null][] = [
      ['a', 10, 7],
      ['b', 20, null],
    ];
    for (const args of cases) {
      const ours = insertJob.compile(db, ...args);
      const theirs = insertJobKysely(db, ...args).compile();
      expect(ours.sql).toBe(theirs.sql);
      expect(ours.parameters).toEqual(theirs.parameters);
    }
    const ours = due.compile(db, 123, 'x', 5);
    const theirs = dueKysely(db, 123, 'x', 5).compile();
    expect(ours.sql).toBe(theirs.sql);
    expect(ours.parameters).toEqual(theirs.parameters);
    expect(ours.parameters).toContain(5);
    expect(ours.parameters.filter((p) => p === 123)).toHaveLength(2);
  });

  it('statement: answers the same rows as the statement built by Kysely', async () => {
    await db.transaction(async (tx) => {
      const a = await insertJob.first(tx, 'stmt-a', 1000, null);
      const b = await insertJobKysely(tx, 'stmt-b', 2000, t.admin.accountId).executeTakeFirst();
      expect(a).toEqual({ id: expect.any(Number), name: 'stmt-a', run_at: 1000, account_id: null });
      expect(b).toMatchObject({ name: 'stmt-b', run_at: 2000, account_id: t.admin.accountId });
      for (const [now, name, limit] of [
        [1500, 'stmt-a', 10],
        [2500, 'stmt-b', 10],
        [500, 'stmt-a', 10],
        [2500, 'stmt-a', 0],
      ] as const) {
        expect(await due.rows(tx, now, name, limit)).toEqual(
          await dueKysely(tx, now, name, limit).execute(),
        );
      }
      // An update's count of rows.
      const touch = statement('test.touch', ({ db }, id: number, error: string) =>
        db.updateTable('jobs').set({ last_error: error }).where('id', '=', id),
      );
      expect(await touch.affected(tx, a?.id as number, 'stmt-a')).toBe(1);
      expect(await touch.affected(tx, -1, 'none')).toBe(0);
      // The first argument (now the last_error) is matched by the `or`.
      expect(await due.rows(tx, 5000, 'stmt-a', 10)).toEqual([{ id: a?.id, name: 'stmt-a' }]);
      await tx.db.deleteFrom('jobs').where('name', 'like', 'stmt-%').execute();
    });
  });

  it('statement: a wrong number of arguments throws', () => {
    const call = due.compile as (d: Database, ...args: unknown[]) => unknown;
    expect(() => call.call(due, db, 1, 'x')).toThrow('test.due: expected 3 arguments, got 2');
    expect(() => call.call(due, db, 1, 'x', 3, 4)).toThrow('expected 3 arguments, got 4');
  });

  it('statement: an argument used in JavaScript instead of handed to the query throws', () => {
    const transformed = statement('test.transformed', ({ db }, id: number, label: string) =>
      db
        .updateTable('jobs')
        .set({ last_error: String(label) })
        .where('id', '=', id),
    );
    expect(() => transformed.compile(db, 1, 'x')).toThrow(
      'test.transformed: argument 2 is not a parameter',
    );
  });

  it('statement: a `sql` template with a clause of the dialect compiles as Kysely would', () => {
    const claim = statement(
      'test.claim',
      ({ dialect }, now: number, limit: number) => sql<{ id: number }>`
        select id from jobs where status = 'queued' and run_at <= ${now}
        order by run_at, id limit ${limit}${dialect === 'postgres' ? sql` for update skip locked` : sql``}`,
    );
    const ours = claim.compile(db, 42, 7);
    const theirs = sql`
        select id from jobs where status = 'queued' and run_at <= ${42}
        order by run_at, id limit ${7}${db.dialect === 'postgres' ? sql` for update skip locked` : sql``}`.compile(
      db.db,
    );
    expect(ours.sql).toBe(theirs.sql);
    expect(ours.parameters).toEqual([42, 7]);
  });

  it('rowStatement: takes a row by column names; a missing or extra column throws', () => {
    const insert = rowStatement(
      'test.insertTag',
      ['account_id', 'label'],
      ({ db }, row: { account_id: number; label: string }) =>
        db.insertInto('tags').values(row).returning('id'),
    );
    const ours = insert.compile(db, { label: 'x', account_id: 3 });
    const theirs = db.db
      .insertInto('tags')
      .values({ account_id: 3, label: 'x' })
      .returning('id')
      .compile();
    expect(ours.sql).toBe(theirs.sql);
    expect(ours.parameters).toEqual(theirs.parameters);
    const loose = insert.compile as (d: Database, row: Record<string, unknown>) => unknown;
    expect(() => loose.call(insert, db, { account_id: 3 })).toThrow('test.insertTag: expected');
    expect(() => loose.call(insert, db, { account_id: 3, label: undefined })).toThrow(
      'no value for label',
    );
    expect(() => loose.call(insert, db, { account_id: 3, label: 'x', extra: 1 })).toThrow(
      'expected the columns account_id, label',
    );
  });
});
