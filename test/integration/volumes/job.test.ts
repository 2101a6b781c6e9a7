import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VolumeRef } from '../../../src/machines/driver.js';
import { SimulatedDriver } from '../../../src/machines/simulated.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** A volume created through the API, with its job's row (not yet run). */
async function volumeWithJob(app: TestApp, label: string) {
  const r = await app.post('/v4/volumes', { label, region: 'us-east', size: 20 });
  expect(r.status).toBe(200);
  const job = await app.ctx.db.db
    .selectFrom('jobs')
    .select(['id', 'payload', 'run_at'])
    .where('entity_type', '=', 'volume')
    .where('entity_id', '=', r.body.id)
    .executeTakeFirstOrThrow();
  return { id: r.body.id as number, job };
}

/** The volume's work when its row (or its event's) is gone under it (nothing in the API does that). */
describe('volume job', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  /** A created volume with its job at `step`, not yet run. */
  const createdAt = async (step: number) => {
    const { id, job } = await volumeWithJob(t, `v-${step}`);
    const payload = JSON.parse(job.payload) as { eventId: number; step: number };
    await t.ctx.db.db
      .updateTable('jobs')
      .set({ payload: JSON.stringify({ ...payload, step }) })
      .where('id', '=', job.id)
      .execute();
    return { volumeId: id, eventId: payload.eventId, jobId: job.id };
  };
  const event = async (id: number) =>
    t.ctx.db.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();

  it.each([0, 2, 4])(
    'createVolume: a volume gone before step %i fails its event and ends the job',
    async (step) => {
      const { volumeId, eventId, jobId } = await createdAt(step);
      const before = await event(eventId);
      await t.ctx.db.db.deleteFrom('volumes').where('id', '=', volumeId).execute();
      await t.settle();
      expect(await event(eventId)).toMatchObject({
        status: 'failed',
        message: 'The volume was deleted.',
        percent_complete: before?.percent_complete,
      });
      const job = await t.ctx.db.db
        .selectFrom('jobs')
        .select('id')
        .where('id', '=', jobId)
        .executeTakeFirst();
      expect(job).toBeUndefined();
    },
  );

  it.each([0, 2, 4])(
    'createVolume: an event gone before step %i leaves the volume to become active',
    async (step) => {
      const { volumeId, eventId } = await createdAt(step);
      await t.ctx.db.db.deleteFrom('events').where('id', '=', eventId).execute();
      await t.settle();
      expect((await t.get(`/v4/volumes/${volumeId}`)).body.status).toBe('active');
      expect(await event(eventId)).toBeUndefined();
    },
  );

  it('createVolume: the event moves scheduled → started → finished with the volume active', async () => {
    const r = await t.post('/v4/volumes', { label: 'v-all', region: 'us-east', size: 20 });
    await t.settle();
    expect((await t.get(`/v4/volumes/${r.body.id}`)).body.status).toBe('active');
    const events = await t.ctx.db.db
      .selectFrom('events')
      .select(['status', 'percent_complete'])
      .where('entity_id', '=', r.body.id)
      .where('action', '=', 'volume_create')
      .execute();
    expect(events).toEqual([{ status: 'finished', percent_complete: 100 }]);
  });
});

/**
 * Steps taken late (a worker behind a burst of work) catch up: the steps whose time has passed go
 * with the one taken, and the job keeps the pace of its timing profile (`fast`: a volume create
 * takes 1 s, in steps 250 ms apart).
 */
describe('volume job: late steps', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const create = async (app: TestApp) => {
    const { id, job } = await volumeWithJob(app, 'late-1');
    return { id, jobId: job.id, dueAt: Number(job.run_at) };
  };
  const createEvent = (app: TestApp, id: number) =>
    app.ctx.db.db
      .selectFrom('events')
      .select(['status', 'percent_complete'])
      .where('entity_id', '=', id)
      .where('action', '=', 'volume_create')
      .executeTakeFirstOrThrow();
  const jobOf = (app: TestApp, jobId: number) =>
    app.ctx.db.db
      .selectFrom('jobs')
      .select(['payload', 'run_at'])
      .where('id', '=', jobId)
      .executeTakeFirst();

  it('createVolume: a first step taken after the whole duration ends the work in that one step', async () => {
    t = await buildTestApp();
    const v = await create(t);
    const before = t.ctx.runner.stats.steps;
    t.clock.advance(1000);
    await t.runDue();
    expect(t.ctx.runner.stats.steps - before).toBe(1);
    expect((await t.get(`/v4/volumes/${v.id}`)).body.status).toBe('active');
    expect(await createEvent(t, v.id)).toEqual({ status: 'finished', percent_complete: 100 });
    expect(await jobOf(t, v.jobId)).toBeUndefined();
  });

  it('createVolume: a step late by two steps reports the later progress, the next due on the profile pace', async () => {
    t = await buildTestApp();
    const v = await create(t);
    t.clock.advance(600);
    await t.runDue();
    expect(await createEvent(t, v.id)).toEqual({ status: 'started', percent_complete: 50 });
    const job = await jobOf(t, v.jobId);
    expect(JSON.parse(job?.payload ?? '{}').step).toBe(3);
    // Steps 0, 1 and 2 were due at +0, +250 and +500: step 3 at +750, not 250 ms after now.
    expect(Number(job?.run_at)).toBe(v.dueAt + 750);
  });

  it('createVolume: a step on time moves one step, the next 250 ms after its own due time', async () => {
    t = await buildTestApp();
    const v = await create(t);
    t.clock.advance(100);
    await t.runDue();
    expect(await createEvent(t, v.id)).toEqual({ status: 'started', percent_complete: 0 });
    expect(Number((await jobOf(t, v.jobId))?.run_at)).toBe(v.dueAt + 250);
  });

  it('createVolume: instant timing ends the work in the first step', async () => {
    t = await buildTestApp({ timing: 'instant' });
    const v = await create(t);
    const before = t.ctx.runner.stats.steps;
    await t.runDue();
    expect(t.ctx.runner.stats.steps - before).toBe(1);
    expect(await createEvent(t, v.id)).toEqual({ status: 'finished', percent_complete: 100 });
  });

  it('createVolume: with a real driver the last step is never taken along (the file is made first)', async () => {
    const made: VolumeRef[] = [];
    class FileDriver extends SimulatedDriver {
      override readonly real: boolean = true;
      override async createVolume(v: VolumeRef): Promise<void> {
        made.push(v);
      }
    }
    t = await buildTestApp({ machines: new FileDriver() });
    const v = await create(t);
    const before = t.ctx.runner.stats.steps;
    t.clock.advance(60_000);
    await t.settle();
    // The first step went to 75%, the last one made the file, then activated the volume.
    expect(t.ctx.runner.stats.steps - before).toBe(2);
    expect(made.map((m) => m.volumeId)).toEqual([v.id]);
    expect((await t.get(`/v4/volumes/${v.id}`)).body.status).toBe('active');
    expect(await createEvent(t, v.id)).toEqual({ status: 'finished', percent_complete: 100 });
  });
});
