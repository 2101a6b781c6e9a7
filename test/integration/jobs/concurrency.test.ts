import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../../src/db/database.js';
import { defineJob } from '../../../src/jobs/job.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { buildTestApp, DIALECT, type TestApp } from '../../helpers/build-test-app.js';

const JOBS = 200;

/** One step: bump the shared counter and record the job id (UNIQUE: a second run would fail). */
const countOnce = defineJob<{ n: number }>({
  name: 'test_count_once',
  version: 1,
  payload: Type.Object({ n: Type.Integer() }),
  maxAttempts: 1,
  async handle(ctx) {
    await sql`update job_counter set n = n + 1 where id = 1`.execute(ctx.db.db);
    await sql`insert into job_runs (job_id) values (${ctx.jobId})`.execute(ctx.db.db);
    return undefined;
  },
});

describe('JobRunner concurrency', () => {
  let t: TestApp;
  const extra: Database[] = [];
  beforeEach(async () => {
    t = await buildTestApp();
    await sql`create table job_counter (id integer primary key, n integer not null)`.execute(
      t.ctx.db.db,
    );
    await sql`create table job_runs (job_id integer not null unique)`.execute(t.ctx.db.db);
    await sql`insert into job_counter (id, n) values (1, 0)`.execute(t.ctx.db.db);
    await t.ctx.db.transaction(async (tx) => {
      for (let i = 0; i < JOBS; i++) await t.ctx.queue.enqueue(tx, countOnce, { n: i });
    });
  });
  afterEach(async () => {
    for (const db of extra.splice(0)) await db.close();
    await t.close();
  });

  const runnerOn = (db: Database) =>
    new JobRunner({
      db,
      clock: t.clock,
      timing: t.ctx.timing,
      events: t.ctx.events,
      queue: t.ctx.queue,
      entities: t.ctx.entities,
      log: pino({ level: 'silent' }),
      definitions: [countOnce],
      batchSize: 5,
    });

  const runAll = async (runners: JobRunner[]) => {
    // Every runner drains the queue at the same time; repeat until nothing is left.
    for (let round = 0; round < 10; round++) {
      const ran = await Promise.all(runners.map((r) => r.runDue()));
      if (ran.every((n) => n === 0)) break;
    }
  };

  const expectEachJobRanOnce = async (runners: JobRunner[]) => {
    const counter = await sql<{ n: number }>`select n from job_counter where id = 1`.execute(
      t.ctx.db.db,
    );
    expect(Number(counter.rows[0]?.n)).toBe(JOBS);
    const runs = await sql<{ c: number; d: number }>`
      select count(*) as c, count(distinct job_id) as d from job_runs`.execute(t.ctx.db.db);
    expect(Number(runs.rows[0]?.c)).toBe(JOBS);
    expect(Number(runs.rows[0]?.d)).toBe(JOBS);
    const left = await t.ctx.db.db.selectFrom('jobs').select(['id', 'status']).execute();
    expect(left).toEqual([]);
    const total = runners.reduce(
      (s, r) => ({
        steps: s.steps + r.stats.steps,
        succeeded: s.succeeded + r.stats.succeeded,
        failed: s.failed + r.stats.failed,
        retried: s.retried + r.stats.retried,
      }),
      { steps: 0, succeeded: 0, failed: 0, retried: 0 },
    );
    expect(total).toEqual({ steps: JOBS, succeeded: JOBS, failed: 0, retried: 0 });
    // The work was shared.
    expect(runners.filter((r) => r.stats.steps > 0).length).toBeGreaterThan(1);
  };

  const shape =
    DIALECT === 'postgres' ? '4 runners with their own pools' : '2 runners sharing one database';
  it(`runDue: ${shape} run each of ${JOBS} jobs exactly once`, async () => {
    // PostgreSQL: separate pools, as separate worker processes would have. SQLite: one database
    // (its writers are serialised), two runners interleaving their transactions on it.
    const runners =
      DIALECT === 'postgres'
        ? Array.from({ length: 4 }, () => {
            const db = Database.connect(t.url, { poolSize: 3 });
            extra.push(db);
            return runnerOn(db);
          })
        : [runnerOn(t.ctx.db), runnerOn(t.ctx.db)];
    await runAll(runners);
    await expectEachJobRanOnce(runners);
  });

  it('start: runner loops on one database run each of 200 jobs exactly once', async () => {
    const dbs =
      DIALECT === 'postgres'
        ? [0, 1, 2].map(() => {
            const db = Database.connect(t.url, { poolSize: 2 });
            extra.push(db);
            return db;
          })
        : [t.ctx.db, t.ctx.db];
    const runners = dbs.map((db) => {
      const r = new JobRunner({
        db,
        clock: t.clock,
        timing: t.ctx.timing,
        events: t.ctx.events,
        queue: t.ctx.queue,
        entities: t.ctx.entities,
        log: pino({ level: 'silent' }),
        definitions: [countOnce],
        batchSize: 3,
        pollMs: 5,
      });
      r.start();
      return r;
    });
    try {
      for (let i = 0; i < 1000; i++) {
        const row = await t.ctx.db.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('c'))
          .executeTakeFirstOrThrow();
        if (Number(row.c) === 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
    await expectEachJobRanOnce(runners);
  });
});
