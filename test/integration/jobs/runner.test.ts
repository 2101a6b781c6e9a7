import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TimingProfile } from '../../../src/config/config.js';
import type { Database } from '../../../src/db/database.js';
import { ApiError } from '../../../src/errors/api-error.js';
import { errorHandler } from '../../../src/http/error-handler.js';
import { defineJob, type JobDefinition } from '../../../src/jobs/job.js';
import { type AnyJobDefinition, JobRunner } from '../../../src/jobs/runner.js';
import { entityRefs } from '../../../src/modules/events/events.types.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const silent = pino({ level: 'silent' });

interface StepPayload {
  eventId: number;
  computeId: number;
  step: number;
  steps: number;
  delayMs?: number;
}

/** started (0%) → … → finished, one step per `delayMs` (default: the timing's boot steps). */
const multiStep = defineJob<StepPayload>({
  name: 'test_multi_step',
  version: 1,
  payload: Type.Object({}),
  maxAttempts: 3,
  async handle(ctx, p) {
    const { events, db } = ctx;
    if (p.step + 1 >= p.steps) {
      await events.update(db, p.eventId, { status: 'finished' });
      return undefined;
    }
    await events.update(db, p.eventId, {
      status: 'started',
      percentComplete: Math.round((p.step * 100) / p.steps),
    });
    return {
      next: { ...p, step: p.step + 1 },
      delayMs: p.delayMs ?? ctx.timing.stepMs('provision', p.steps - 1),
    };
  },
});

/** Records where its `prepare` ran and hands its result to `handle`. */
const seen: { prepareInTx?: boolean; handleInTx?: boolean; prepared?: unknown } = {};
const withPrepare = defineJob<{ eventId: number }>({
  name: 'test_prepare',
  version: 1,
  payload: Type.Object({}),
  maxAttempts: 1,
  async prepare(ctx) {
    seen.prepareInTx = ctx.db.isTransaction;
    return { probed: 'answer' };
  },
  async handle(ctx, p, prepared) {
    seen.handleInTx = ctx.db.isTransaction;
    seen.prepared = prepared;
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    return undefined;
  },
});

describe('JobRunner', () => {
  let t: TestApp;
  let calls: { name: string; attempt: number; jobId: number }[];
  /** Set by a test: what the `test_flaky` step does. */
  let behave: (ctx: Parameters<AnyJobDefinition['handle']>[0], p: FlakyPayload) => Promise<void>;

  interface FlakyPayload {
    eventId: number;
    failTimes: number;
  }
  const flaky: JobDefinition<FlakyPayload> = defineJob<FlakyPayload>({
    name: 'test_flaky',
    version: 1,
    payload: Type.Object({}),
    maxAttempts: 3,
    backoffMs: (attempt) => attempt * 10_000,
    async handle(ctx, p) {
      calls.push({ name: 'test_flaky', attempt: ctx.attempt, jobId: ctx.jobId });
      await behave(ctx, p);
      if (ctx.attempt <= p.failTimes) throw new Error(`boom ${ctx.attempt}`);
      await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
      return undefined;
    },
    async onFailure(ctx, p, error) {
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: `Job failed: ${error.message}`,
      });
    },
  });

  /** `test_flaky` with work outside the database (a `perform`): claimed, leased, then run. */
  const leasedFlaky: JobDefinition<FlakyPayload> = {
    ...flaky,
    name: 'test_flaky_leased',
    perform: async (_ctx, p) => ({ payload: p }),
  };

  const runnerFor = (app: TestApp, db: Database = app.ctx.db, extra = {}) =>
    new JobRunner({
      db,
      clock: app.clock,
      timing: app.ctx.timing,
      events: app.ctx.events,
      queue: app.ctx.queue,
      entities: app.ctx.entities,
      log: silent,
      definitions: [multiStep, flaky, leasedFlaky, withPrepare],
      ...extra,
    });

  /** Runs every job to the end on fake time, like TestApp.settle, with a given runner. */
  const settle = async (app: TestApp, runner: JobRunner) => {
    for (let i = 0; i < 1000; i++) {
      await runner.runDue();
      const next = await runner.nextDueAt();
      if (next === undefined) return;
      if (next > app.clock.nowMs()) app.clock.set(next);
    }
    throw new Error('settle: jobs did not finish');
  };

  const job = (id: number) =>
    t.ctx.db.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  const event = async (id: number) => (await t.get(`/v4/account/events/${id}`)).body;

  /** Records a scheduled event and enqueues a job for compute `computeId` in one transaction. */
  const start = async <P>(
    def: JobDefinition<P>,
    payload: (eventId: number) => P,
    opts: { computeId?: number; delayMs?: number } = {},
  ) =>
    t.ctx.db.transaction(async (tx) => {
      const computeId = opts.computeId ?? 7;
      const eventId = await t.ctx.events.record(tx, {
        accountId: t.admin.accountId,
        action: 'compute_boot',
        entity: entityRefs.compute(computeId, 'web'),
        status: 'scheduled',
        username: 'owner',
      });
      const jobId = await t.ctx.queue.enqueue(tx, def, payload(eventId), {
        accountId: t.admin.accountId,
        entity: { type: 'compute', id: computeId },
        ...(opts.delayMs !== undefined ? { delayMs: opts.delayMs } : {}),
      });
      return { eventId, jobId };
    });

  let runner: JobRunner;
  beforeEach(async () => {
    t = await buildTestApp();
    calls = [];
    behave = async () => {};
    runner = runnerFor(t);
  });
  afterEach(async () => {
    await runner.stop();
    await t.close();
  });

  it('enqueue: a transaction that rolls back leaves no job', async () => {
    let woken = 0;
    t.ctx.queue.onEnqueue = () => {
      woken++;
    };
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await t.ctx.queue.enqueue(tx, multiStep, { eventId: 0, computeId: 1, step: 0, steps: 2 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const rows = await t.ctx.db.db.selectFrom('jobs').select('id').execute();
    expect(rows).toEqual([]);
    expect(await runner.runDue()).toBe(0);
    expect(woken).toBe(0);
    await t.ctx.queue.assertIdle(t.ctx.db, 'compute', 1, 'Compute');

    // A committed enqueue wakes the runner once, after the commit.
    await start(multiStep, (eventId) => ({ eventId, computeId: 1, step: 0, steps: 2 }));
    expect(woken).toBe(1);
  });

  it('runDue: a multi-step job moves its event scheduled → started → finished', async () => {
    const { eventId, jobId } = await start(multiStep, (id) => ({
      eventId: id,
      computeId: 7,
      step: 0,
      steps: 4,
      delayMs: 2000,
    }));
    expect(await event(eventId)).toMatchObject({ status: 'scheduled', percent_complete: null });
    expect(await job(jobId)).toMatchObject({ status: 'queued', name: 'test_multi_step' });

    const seen: number[] = [];
    expect(await runner.runDue()).toBe(1);
    let e = await event(eventId);
    expect(e).toMatchObject({ status: 'started', duration: null });
    seen.push(e.percent_complete);
    // The next step is not due yet.
    expect(await runner.runDue()).toBe(0);
    expect(await runner.nextDueAt()).toBe(t.clock.nowMs() + 2000);
    t.clock.advance(1999);
    expect(await runner.runDue()).toBe(0);
    t.clock.advance(1);
    expect(await runner.runDue()).toBe(1);
    e = await event(eventId);
    seen.push(e.percent_complete);
    t.clock.advance(2000);
    await runner.runDue();
    seen.push((await event(eventId)).percent_complete);
    expect(seen).toEqual([0, 25, 50]);
    expect(await job(jobId)).toMatchObject({ status: 'queued', attempts: 0 });

    await settle(t, runner);
    expect(await event(eventId)).toMatchObject({
      status: 'finished',
      percent_complete: 100,
      duration: 6,
    });
    expect(await job(jobId)).toBeUndefined();
    expect(runner.stats).toMatchObject({ succeeded: 1, failed: 0, retried: 0, steps: 4 });
    expect(await runner.nextDueAt()).toBeUndefined();
  });

  it('runDue: prepare runs before the step, outside its transaction, and hands its result to handle', async () => {
    const { eventId } = await start(withPrepare, (id) => ({ eventId: id }));
    await runner.runDue();
    expect(seen).toEqual({ prepareInTx: false, handleInTx: true, prepared: { probed: 'answer' } });
    expect((await event(eventId)).status).toBe('finished');
  });

  it('runDue: a delayed job waits for the fake clock; settle moves it', async () => {
    const t0 = t.clock.nowMs();
    const { eventId } = await start(
      multiStep,
      (id) => ({ eventId: id, computeId: 7, step: 0, steps: 2, delayMs: 1000 }),
      { delayMs: 30_000 },
    );
    expect(await runner.runDue()).toBe(0);
    expect(await runner.nextDueAt()).toBe(t0 + 30_000);
    t.clock.advance(29_999);
    expect(await runner.runDue()).toBe(0);
    expect((await event(eventId)).status).toBe('scheduled');
    await settle(t, runner);
    expect(t.clock.nowMs()).toBe(t0 + 31_000);
    expect(await event(eventId)).toMatchObject({ status: 'finished', duration: 1 });
  });

  it('runDue: a failing step is retried with back-off, then fails for good', async () => {
    const { eventId, jobId } = await start(flaky, (id) => ({ eventId: id, failTimes: 99 }));
    const t0 = t.clock.nowMs();
    expect(await runner.runDue()).toBe(1);
    expect(await job(jobId)).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'boom 1',
      run_at: t0 + 10_000,
      locked_by: null,
    });
    // Back-off: not retried before it is due.
    t.clock.advance(9_999);
    expect(await runner.runDue()).toBe(0);
    t.clock.advance(1);
    expect(await runner.runDue()).toBe(1);
    expect(await job(jobId)).toMatchObject({
      status: 'queued',
      attempts: 2,
      last_error: 'boom 2',
      run_at: t.clock.nowMs() + 20_000,
    });
    expect((await event(eventId)).status).toBe('scheduled');
    await expect(t.ctx.queue.assertIdle(t.ctx.db, 'compute', 7, 'Compute')).rejects.toThrow(
      'Compute busy.',
    );

    await settle(t, runner);
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(await job(jobId)).toMatchObject({ status: 'failed', attempts: 3, last_error: 'boom 3' });
    expect(await event(eventId)).toMatchObject({
      status: 'failed',
      message: 'Job failed: boom 3',
      duration: 30,
    });
    expect(runner.stats).toMatchObject({ failed: 1, retried: 2, succeeded: 0 });
    // A failed job no longer holds the entity.
    await t.ctx.queue.assertIdle(t.ctx.db, 'compute', 7, 'Compute');
  });

  it('runDue: a step that succeeds after failures finishes, and attempts are per step', async () => {
    const { eventId, jobId } = await start(flaky, (id) => ({ eventId: id, failTimes: 2 }));
    await settle(t, runner);
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(await job(jobId)).toBeUndefined();
    expect((await event(eventId)).status).toBe('finished');

    // Each step of a multi-step job gets the full max_attempts.
    let failures = 0;
    const bumpy = defineJob<{ step: number }>({
      name: 'test_bumpy',
      version: 1,
      payload: Type.Object({}),
      maxAttempts: 2,
      async handle(ctx, p) {
        if (ctx.attempt === 1) {
          failures++;
          throw new Error(`step ${p.step} hiccup`);
        }
        return p.step < 3 ? { next: { step: p.step + 1 }, delayMs: 100 } : undefined;
      },
    });
    const r = new JobRunner({
      db: t.ctx.db,
      clock: t.clock,
      timing: t.ctx.timing,
      events: t.ctx.events,
      queue: t.ctx.queue,
      entities: t.ctx.entities,
      log: silent,
      definitions: [bumpy],
    });
    const id = await t.ctx.queue.enqueue(t.ctx.db, bumpy, { step: 0 });
    await settle(t, r);
    expect(failures).toBe(4);
    expect(await job(id)).toBeUndefined();
    expect(r.stats).toMatchObject({ succeeded: 1, failed: 0, retried: 4 });
  });

  it('runDue: a step’s database changes roll back when it throws', async () => {
    behave = async (ctx, p) => {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 50 });
      await ctx.events.record(ctx.db, {
        accountId: t.admin.accountId,
        action: 'compute_update',
        entity: null,
        status: 'notification',
        username: null,
      });
    };
    const { eventId, jobId } = await start(flaky, (id) => ({ eventId: id, failTimes: 1 }));
    await runner.runDue();
    expect(await event(eventId)).toMatchObject({ status: 'scheduled', percent_complete: null });
    expect((await t.get('/v4/account/events')).body.results).toBe(1);
    expect(await job(jobId)).toMatchObject({ attempts: 1, last_error: 'boom 1' });
    // The retry's changes commit.
    await settle(t, runner);
    expect((await t.get('/v4/account/events')).body.results).toBe(2);
    expect((await event(eventId)).status).toBe('finished');
  });

  it('runDue: the due steps of several jobs run in their claim’s transaction, one commit for the batch', async () => {
    const jobs = [];
    for (const computeId of [1, 2, 3]) {
      jobs.push(await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId }));
    }
    const db = t.ctx.db;
    const transaction = db.transaction.bind(db);
    let transactions = 0;
    db.transaction = ((fn) => {
      transactions++;
      return transaction(fn);
    }) as Database['transaction'];
    try {
      expect(await runner.runDue()).toBe(3);
    } finally {
      db.transaction = transaction;
    }
    // The batch (claim and three steps), then the claim that finds nothing due: not a claim and
    // a transaction per step.
    expect(transactions).toBe(2);
    for (const j of jobs) {
      expect(await job(j.jobId)).toBeUndefined();
      expect((await event(j.eventId)).status).toBe('finished');
    }
    expect(runner.stats).toMatchObject({ steps: 3, succeeded: 3, failed: 0, retried: 0 });
  });

  it('runDue: a step that throws in a batch rolls back alone, with its on-commit hooks; the others commit', async () => {
    let hooked = 0;
    behave = async (ctx, p) => {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 50 });
      ctx.db.onCommit(() => {
        hooked++;
      });
    };
    const a = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 1 });
    const b = await start(flaky, (id) => ({ eventId: id, failTimes: 1 }), { computeId: 2 });
    const c = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 3 });
    expect(await runner.runDue()).toBe(3);
    // b's step threw: its event change and its hook are gone, and it waits for its retry.
    expect(await event(b.eventId)).toMatchObject({ status: 'scheduled', percent_complete: null });
    expect(await job(b.jobId)).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'boom 1',
    });
    for (const j of [a, c]) {
      expect(await job(j.jobId)).toBeUndefined();
      expect((await event(j.eventId)).status).toBe('finished');
    }
    expect(hooked).toBe(2);
    expect(runner.stats).toMatchObject({ steps: 3, succeeded: 2, retried: 1 });
    await settle(t, runner);
    expect((await event(b.eventId)).status).toBe('finished');
    expect(hooked).toBe(3);
  });

  it('runDue: a deadlock in a batched step retries the batch, and costs the step no attempt', async () => {
    let deadlocks = 1;
    behave = async (ctx) => {
      if (ctx.jobId === b.jobId && deadlocks-- > 0) {
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }
    };
    const a = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 1 });
    const b = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 2 });
    expect(await runner.runDue()).toBe(2);
    // The batch ran twice (a's step too, its first run rolled back with the batch).
    expect(calls.map((c) => c.jobId)).toEqual([a.jobId, b.jobId, a.jobId, b.jobId]);
    expect(calls.map((c) => c.attempt)).toEqual([1, 1, 1, 1]);
    for (const j of [a, b]) {
      expect(await job(j.jobId)).toBeUndefined();
      expect((await event(j.eventId)).status).toBe('finished');
    }
    expect(runner.stats).toMatchObject({ steps: 2, succeeded: 2, failed: 0, retried: 0 });
  });

  it('runDue: a step whose job fails for good in a batch runs onFailure there; the others commit', async () => {
    const a = await start(flaky, (id) => ({ eventId: id, failTimes: 9 }), { computeId: 1 });
    const b = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 2 });
    await t.ctx.db.db.updateTable('jobs').set({ attempts: 2 }).where('id', '=', a.jobId).execute();
    expect(await runner.runDue()).toBe(2);
    expect(await job(a.jobId)).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_error: 'boom 3',
    });
    expect(await event(a.eventId)).toMatchObject({
      status: 'failed',
      message: 'Job failed: boom 3',
    });
    expect(await job(b.jobId)).toBeUndefined();
    expect((await event(b.eventId)).status).toBe('finished');
  });

  it('runDue: a failing onFailure still fails the job', async () => {
    const broken = defineJob<{ n: number }>({
      name: 'test_broken',
      version: 1,
      payload: Type.Object({}),
      maxAttempts: 1,
      async handle() {
        throw new Error('step broke');
      },
      async onFailure() {
        throw new Error('hook broke');
      },
    });
    const r = runnerFor(t, t.ctx.db, { definitions: [broken] });
    const id = await t.ctx.queue.enqueue(
      t.ctx.db,
      broken,
      { n: 1 },
      {
        entity: { type: 'compute', id: 3 },
      },
    );
    await settle(t, r);
    expect(await job(id)).toMatchObject({ status: 'failed', last_error: 'step broke' });
    await t.ctx.queue.assertIdle(t.ctx.db, 'compute', 3, 'Compute');
  });

  it('runDue: a job without a definition fails at once', async () => {
    const unknown = defineJob<{ n: number }>({
      name: 'test_not_registered',
      version: 1,
      payload: Type.Object({}),
      maxAttempts: 5,
      handle: async () => undefined,
    });
    const id = await t.ctx.queue.enqueue(t.ctx.db, unknown, { n: 1 });
    await runner.runDue();
    expect(await job(id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: 'no job definition named test_not_registered',
    });
  });

  it('assertIdle: 400 Compute busy. while a job is queued or running, not after', async () => {
    const app = Fastify();
    app.setErrorHandler(errorHandler);
    app.get('/busy/:id', async (req) => {
      await t.ctx.queue.assertIdle(t.ctx.db, 'compute', Number((req.params as any).id), 'Compute');
      return {};
    });
    const busy = async (id: number) => {
      const r = await app.inject({ method: 'GET', url: `/busy/${id}` });
      return { status: r.statusCode, body: r.json() };
    };
    try {
      const { eventId } = await start(
        multiStep,
        (id) => ({ eventId: id, computeId: 7, step: 0, steps: 3, delayMs: 1000 }),
        { delayMs: 500 },
      );
      expect(await busy(7)).toEqual({
        status: 400,
        body: { errors: [{ reason: 'Compute busy.' }] },
      });
      expect(await busy(8)).toEqual({ status: 200, body: {} });
      expect(await t.ctx.queue.hasActive(t.ctx.db, 'volume', 7)).toBe(false);

      // While a step runs, the job is `running` and the entity still busy.
      let during: unknown;
      behave = async (ctx) => {
        during = await ctx.queue.assertIdle(ctx.db, 'compute', 9, 'Compute').catch((e) => e);
      };
      await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 9 });
      await runner.runDue();
      expect(during).toBeInstanceOf(ApiError);
      expect((during as ApiError).status).toBe(400);
      expect((during as ApiError).errors).toEqual([{ reason: 'Compute busy.' }]);
      expect(await busy(9)).toEqual({ status: 200, body: {} });

      // Between steps (queued again) it is busy; after the last step it is not.
      t.clock.advance(500);
      await runner.runDue();
      expect((await event(eventId)).status).toBe('started');
      expect((await busy(7)).status).toBe(400);
      await settle(t, runner);
      expect((await event(eventId)).status).toBe('finished');
      expect(await busy(7)).toEqual({ status: 200, body: {} });
    } finally {
      await app.close();
    }
  });

  it('claim: a job whose worker died is recovered by another runner', async () => {
    const { eventId, jobId } = await start(multiStep, (id) => ({
      eventId: id,
      computeId: 7,
      step: 0,
      steps: 2,
      delayMs: 0,
    }));
    const now = t.clock.nowMs();
    // A worker claimed it and died; its lease is still running.
    await t.ctx.db.db
      .updateTable('jobs')
      .set({ status: 'running', locked_by: 'w-dead', locked_until: now + 60_000 })
      .where('id', '=', jobId)
      .execute();
    expect(await runner.runDue()).toBe(0);
    expect(await job(jobId)).toMatchObject({ status: 'running', locked_by: 'w-dead' });
    await expect(t.ctx.queue.assertIdle(t.ctx.db, 'compute', 7, 'Compute')).rejects.toThrow();
    // The lease end is when there is something to do next.
    expect(await runner.nextDueAt()).toBe(now + 60_000);
    t.clock.advance(60_001);
    expect(await runner.runDue()).toBeGreaterThan(0);
    await settle(t, runner);
    expect(await job(jobId)).toBeUndefined();
    expect((await event(eventId)).status).toBe('finished');
  });

  it('claim: a step that kills its worker every time ends failed after max attempts', async () => {
    const { eventId, jobId } = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }));
    // Two workers already died running it; a third claimed it and died too (flaky allows 3).
    await t.ctx.db.db
      .updateTable('jobs')
      .set({ status: 'running', locked_by: 'w-dead', locked_until: t.clock.nowMs(), attempts: 2 })
      .where('id', '=', jobId)
      .execute();
    t.clock.advance(1);
    await runner.runDue();
    expect(await job(jobId)).toMatchObject({ status: 'failed' });
    expect(calls).toEqual([]);
    const e = await event(eventId);
    expect(e.status).toBe('failed');
    expect(e.message).toContain('worker');
  });

  it('claim: settle waits for a lease to end and then recovers the job', async () => {
    const { jobId } = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }));
    await t.ctx.db.db
      .updateTable('jobs')
      .set({ status: 'running', locked_by: 'w-dead', locked_until: t.clock.nowMs() + 5_000 })
      .where('id', '=', jobId)
      .execute();
    await settle(t, runner);
    expect(await job(jobId)).toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('runStep: a runner that lost its lease does not run or fail the job', async () => {
    const { jobId } = await start(leasedFlaky, (id) => ({ eventId: id, failTimes: 9 }));
    // The runner claims the job, then another worker takes it over before the step runs.
    const internals = runner as unknown as {
      claimAndRun(): Promise<{ leased: { id: number }[] }>;
      runStep(job: { id: number }): Promise<void>;
    };
    const claimed = (await internals.claimAndRun()).leased;
    expect(claimed.map((j) => j.id)).toEqual([jobId]);
    expect(await job(jobId)).toMatchObject({ status: 'running', locked_by: runner.workerId });
    await t.ctx.db.db
      .updateTable('jobs')
      .set({ locked_by: 'w-else', locked_until: t.clock.nowMs() + 60_000 })
      .where('id', '=', jobId)
      .execute();
    await internals.runStep(claimed[0]!);
    expect(calls).toEqual([]);
    expect(await job(jobId)).toMatchObject({ status: 'running', locked_by: 'w-else', attempts: 0 });
  });

  it.each([
    ['steps run in the batch transaction', () => flaky],
    ['leased steps', () => leasedFlaky],
  ])('stop: finishes the step under way and releases claimed jobs (%s)', async (_, def) => {
    const jobDef = def();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered: () => void = () => {};
    const inStep = new Promise<void>((r) => {
      entered = r;
    });
    behave = async () => {
      entered();
      await gate;
    };
    const a = await start(jobDef, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 1 });
    const b = await start(jobDef, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 2 });
    const c = await start(jobDef, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 3 });
    runner = runnerFor(t, t.ctx.db, { pollMs: 5 });
    runner.start();
    await inStep;
    const stopped = runner.stop();
    release();
    await stopped;
    expect(calls.map((x) => x.jobId)).toEqual([a.jobId]);
    expect(await job(a.jobId)).toBeUndefined();
    expect((await event(a.eventId)).status).toBe('finished');
    for (const j of [b, c]) {
      expect(await job(j.jobId)).toMatchObject({
        status: 'queued',
        locked_by: null,
        locked_until: null,
      });
      expect((await event(j.eventId)).status).toBe('scheduled');
    }
    // Another runner picks them up.
    const next = runnerFor(t);
    await settle(t, next);
    expect(calls.map((x) => x.jobId)).toEqual([a.jobId, b.jobId, c.jobId]);
  });

  it('start: the loop runs jobs as they are enqueued', async () => {
    runner = runnerFor(t, t.ctx.db, { pollMs: 1000 });
    t.ctx.queue.onEnqueue = () => runner.wake();
    runner.start();
    const { jobId } = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }));
    for (let i = 0; i < 200 && (await job(jobId)) !== undefined; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await job(jobId)).toBeUndefined();
    await runner.stop();
  });

  it('start: after the jobs it claimed, the loop looks again at most once before it sleeps, with a read', async () => {
    runner = runnerFor(t, t.ctx.db, { pollMs: 60_000 });
    const passes = countPasses(runner);
    const claims = countClaims(runner);
    const a = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 1 });
    t.ctx.queue.onEnqueue = () => runner.wake();
    runner.start();
    for (let i = 0; i < 200 && (await job(a.jobId)) !== undefined; i++) {
      await new Promise((res) => setTimeout(res, 5));
    }
    expect(await job(a.jobId)).toBeUndefined();
    // The pass that ran the job, then one short pause and one pass that reads and finds nothing
    // to claim; not a claim after each job and another after the pass (three here), and no
    // polling meanwhile.
    await new Promise((res) => setTimeout(res, 100));
    expect(passes.map((p) => p.probe)).toEqual([false, true]);
    expect(claims).toHaveLength(1);
    // A job enqueued meanwhile wakes the loop at once, whatever the poll.
    const b = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 2 });
    for (let i = 0; i < 200 && (await job(b.jobId)) !== undefined; i++) {
      await new Promise((res) => setTimeout(res, 5));
    }
    expect(await job(b.jobId)).toBeUndefined();
    await runner.stop();
  });

  /** Counts the runner's claims (each a transaction) and whether each recovered leases. */
  const countClaims = (r: JobRunner) => {
    const claims: boolean[] = [];
    const internals = r as unknown as { claimAndRun: (recover?: boolean) => Promise<unknown> };
    const claim = internals.claimAndRun.bind(r);
    internals.claimAndRun = async (recover?: boolean) => {
      claims.push(recover === true);
      return claim(recover);
    };
    return claims;
  };
  /** Counts the loop's passes: whether each recovered leases, and whether it read the queue first. */
  const countPasses = (r: JobRunner) => {
    const passes: { recover: boolean; probe: boolean }[] = [];
    const internals = r as unknown as {
      pass: (recover: boolean, probe?: boolean) => Promise<unknown>;
    };
    const pass = internals.pass.bind(r);
    internals.pass = async (recover: boolean, probe?: boolean) => {
      passes.push({ recover, probe: probe === true });
      return pass(recover, probe);
    };
    return passes;
  };
  /** A job whose worker died: running, its lease ended at `lockedUntil`. */
  const deadWorkersJob = async (computeId: number, lockedUntil: number) => {
    const j = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), {
      computeId,
      delayMs: 3_600_000,
    });
    await t.ctx.db.db
      .updateTable('jobs')
      .set({
        status: 'running',
        locked_by: 'w-dead',
        locked_until: lockedUntil,
        run_at: t.clock.nowMs(),
      })
      .where('id', '=', j.jobId)
      .execute();
    return j;
  };
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 400 && !(await check()); i++) {
      await new Promise((res) => setTimeout(res, 5));
    }
    expect(await check()).toBe(true);
  };

  it('start: the loop recovers expired leases at its start, not at each claim', async () => {
    const dead = await deadWorkersJob(1, t.clock.nowMs());
    runner = runnerFor(t, t.ctx.db, { pollMs: 5, recoverEveryMs: 3_600_000 });
    const claims = countClaims(runner);
    t.ctx.queue.onEnqueue = () => runner.wake();
    runner.start();
    // Recovered at the first claim (queued again, the lost run counted), then run.
    await until(async () => (await job(dead.jobId)) === undefined);
    expect(claims[0]).toBe(true);
    // A lease that ends now is not recovered by the claims that follow within the interval.
    const later = await deadWorkersJob(2, t.clock.nowMs());
    const b = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 3 });
    await until(async () => (await job(b.jobId)) === undefined);
    expect(claims.length).toBeGreaterThan(1);
    expect(claims.slice(1)).not.toContain(true);
    expect(await job(later.jobId)).toMatchObject({ status: 'running', locked_by: 'w-dead' });
    // `runDue` (the clock's advance, tests) recovers at once.
    expect(await runner.runDue()).toBeGreaterThan(0);
    expect(await job(later.jobId)).toBeUndefined();
  });

  it('start: the loop recovers a lease that ends while it runs within recoverEveryMs', async () => {
    runner = runnerFor(t, t.ctx.db, { pollMs: 5, recoverEveryMs: 20 });
    const passes = countPasses(runner);
    runner.start();
    await until(async () => passes.length >= 3);
    const dead = await deadWorkersJob(1, t.clock.nowMs());
    await until(async () => (await job(dead.jobId)) === undefined);
    expect(calls.map((c) => c.jobId)).toEqual([dead.jobId]);
    // Not every pass recovered: the loop polls every 5 ms, recovers every 20 ms.
    expect(passes.filter((p) => !p.recover).length).toBeGreaterThan(0);
  });

  /** A loop that polls every 5 ms and recovers leases only at its start, its passes and claims counted. */
  const pollingLoop = () => {
    runner = runnerFor(t, t.ctx.db, { pollMs: 5, recoverEveryMs: 3_600_000 });
    const passes = countPasses(runner);
    const claims = countClaims(runner);
    runner.start();
    return { passes, claims };
  };
  /** Waits for `n` more passes than there are now. */
  const morePasses = (passes: unknown[], n: number) => {
    const seen = passes.length;
    return until(async () => passes.length >= seen + n);
  };

  it('start: an idle loop reads whether a job is due at each poll, and claims only when one is', async () => {
    const { passes, claims } = pollingLoop();
    await until(async () => passes.length >= 6);
    // The pass at the start claims; the polls after a pass that found nothing only read.
    expect(claims).toHaveLength(1);
    expect(passes[0]?.probe).toBe(false);
    expect(passes.slice(1).every((p) => p.probe)).toBe(true);
    // A job due later is not claimed for; one due now, enqueued with no wake-up, is at a poll.
    await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), {
      computeId: 1,
      delayMs: 3_600_000,
    });
    await morePasses(passes, 4);
    expect(claims).toHaveLength(1);
    const due = await start(flaky, (id) => ({ eventId: id, failTimes: 0 }), { computeId: 2 });
    await until(async () => (await job(due.jobId)) === undefined);
    expect(claims.length).toBeGreaterThanOrEqual(2);
    expect(calls.map((c) => c.jobId)).toEqual([due.jobId]);
  });

  it('start: a poll that does not recover leases does not claim for a lease that ended', async () => {
    const { passes, claims } = pollingLoop();
    await until(async () => passes.length >= 2);
    const dead = await deadWorkersJob(1, t.clock.nowMs());
    await morePasses(passes, 4);
    expect(claims).toHaveLength(1);
    expect(await job(dead.jobId)).toMatchObject({ status: 'running', locked_by: 'w-dead' });
  });

  it('wake: the wake-ups of one turn of the event loop share one claim', async () => {
    runner = runnerFor(t, t.ctx.db, { pollMs: 60_000 });
    const claims = countClaims(runner);
    runner.start();
    await until(async () => claims.length >= 1);
    await new Promise((res) => setTimeout(res, 20));
    const before = claims.length;
    // Two commits' wake-ups in one turn, a few microtasks apart (the loop could have begun its
    // claim between them).
    runner.wake();
    for (let i = 0; i < 50; i++) await Promise.resolve();
    runner.wake();
    await new Promise((res) => setTimeout(res, 50));
    expect(claims.length - before).toBe(1);
  });

  it('start: the steps of a job due again at once run one after another, without the poll', async () => {
    runner = runnerFor(t, t.ctx.db, { pollMs: 60_000 });
    t.ctx.queue.onEnqueue = () => runner.wake();
    runner.start();
    const { eventId, jobId } = await start(multiStep, (id) => ({
      eventId: id,
      computeId: 7,
      step: 0,
      steps: 6,
      delayMs: 0,
    }));
    for (let i = 0; i < 400 && (await job(jobId)) !== undefined; i++) {
      await new Promise((res) => setTimeout(res, 5));
    }
    expect(await job(jobId)).toBeUndefined();
    expect((await event(eventId)).status).toBe('finished');
    await runner.stop();
  });
});

describe('JobRunner timing profiles', () => {
  const cases: [TimingProfile, (d: number) => void][] = [
    ['instant', (d) => expect(d).toBe(0)],
    [
      'fast',
      (d) => {
        expect(d).toBeGreaterThan(0);
        expect(d).toBeLessThanOrEqual(4);
      },
    ],
    ['realistic', (d) => expect(d).toBe(45)],
  ];
  for (const [timing, check] of cases) {
    it(`runDue: a job paced by ctx.timing takes its ${timing} duration`, async () => {
      const t = await buildTestApp({ timing });
      try {
        const runner = new JobRunner({
          db: t.ctx.db,
          clock: t.clock,
          timing: t.ctx.timing,
          events: t.ctx.events,
          queue: t.ctx.queue,
          entities: t.ctx.entities,
          log: silent,
          definitions: [multiStep],
        });
        const t0 = t.clock.nowMs();
        const eventId = await t.ctx.db.transaction(async (tx) => {
          const id = await t.ctx.events.record(tx, {
            accountId: t.admin.accountId,
            action: 'compute_create',
            entity: entityRefs.compute(1, 'x'),
            status: 'scheduled',
            username: 'owner',
          });
          await t.ctx.queue.enqueue(tx, multiStep, {
            eventId: id,
            computeId: 1,
            step: 0,
            steps: 3,
          });
          return id;
        });
        for (let i = 0; i < 100; i++) {
          await runner.runDue();
          const next = await runner.nextDueAt();
          if (next === undefined) break;
          t.clock.set(Math.max(next, t.clock.nowMs()));
        }
        const e = (await t.get(`/v4/account/events/${eventId}`)).body;
        expect(e.status).toBe('finished');
        check(e.duration);
        expect(t.clock.nowMs() - t0).toBe(t.ctx.timing.durationMs('provision'));
      } finally {
        await t.close();
      }
    });
  }
});
