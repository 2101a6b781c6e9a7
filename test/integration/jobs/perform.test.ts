import { Type } from '@sinclair/typebox';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { defineJob } from '../../../src/jobs/job.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { CapacityError } from '../../../src/machines/driver.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** A job's `perform` phase: work outside the step's transaction before `handle`. */
interface P {
  polls: number;
  seen?: string;
  fail?: 'final' | 'transient';
  /** No work outside the database for this step (`performs` says so). */
  idle?: boolean;
}

const trace: string[] = [];
const job = defineJob<P>({
  name: 'test_perform',
  version: 1,
  payload: Type.Object({}),
  maxAttempts: 3,
  performs: (_machines, p) => p.idle !== true,
  async perform(ctx, p) {
    trace.push(`perform:${ctx.db.isTransaction ? 'tx' : 'no-tx'}:${p.polls}`);
    if (p.fail === 'final') throw new CapacityError('The host is full.');
    if (p.fail === 'transient') throw new Error('QMP did not answer');
    if (p.polls < 2) return { payload: { ...p, polls: p.polls + 1 }, waitMs: 1000 };
    return { payload: { ...p, seen: 'by handle' } };
  },
  async handle(ctx, p) {
    trace.push(`handle:${ctx.db.isTransaction ? 'tx' : 'no-tx'}:${p.seen}`);
    return undefined;
  },
});

let t: TestApp;
afterEach(async () => {
  await t?.close();
  trace.length = 0;
});

async function run(payload: P) {
  t = await buildTestApp();
  const runner = new JobRunner({
    db: t.ctx.db,
    clock: t.clock,
    timing: t.ctx.timing,
    events: t.ctx.events,
    queue: t.ctx.queue,
    entities: t.ctx.entities,
    log: pino({ level: 'silent' }),
    definitions: [job],
  });
  await t.ctx.db.transaction((tx) => t.ctx.queue.enqueue(tx, job, payload));
  for (let i = 0; i < 50; i++) {
    await runner.runDue();
    const next = await runner.nextDueAt();
    if (next === undefined) break;
    if (next > t.clock.nowMs()) t.clock.set(next);
  }
  return t.ctx.db.db.selectFrom('jobs').selectAll().where('name', '=', job.name).execute();
}

describe('job perform phase', () => {
  it('perform: runs outside the transaction, may wait, and hands its payload to handle', async () => {
    const left = await run({ polls: 0 });
    expect(trace).toEqual([
      'perform:no-tx:0',
      'perform:no-tx:1',
      'perform:no-tx:2',
      'handle:tx:by handle',
    ]);
    expect(left).toEqual([]);
  });

  it('performs: a step without work outside the database runs without perform, in the batch transaction', async () => {
    const left = await run({ polls: 0, idle: true });
    expect(trace).toEqual(['handle:tx:undefined']);
    expect(left).toEqual([]);
  });

  it('perform: an error marked final fails the job at once, without retries', async () => {
    const left = await run({ polls: 0, fail: 'final' });
    expect(trace).toEqual(['perform:no-tx:0']);
    expect(left).toMatchObject([
      { status: 'failed', attempts: 1, last_error: 'The host is full.' },
    ]);
  });

  it('perform: any other error is retried with back-off like a failing handle', async () => {
    const left = await run({ polls: 0, fail: 'transient' });
    expect(trace).toEqual(['perform:no-tx:0', 'perform:no-tx:0', 'perform:no-tx:0']);
    expect(left).toMatchObject([{ status: 'failed', attempts: 3 }]);
  });
});
