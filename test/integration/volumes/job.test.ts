import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

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
    const r = await t.post('/v4/volumes', { label: `v-${step}`, region: 'us-east', size: 20 });
    expect(r.status).toBe(200);
    const job = await t.ctx.db.db
      .selectFrom('jobs')
      .select(['id', 'payload'])
      .where('entity_type', '=', 'volume')
      .where('entity_id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    const payload = JSON.parse(job.payload) as { eventId: number; step: number };
    await t.ctx.db.db
      .updateTable('jobs')
      .set({ payload: JSON.stringify({ ...payload, step }) })
      .where('id', '=', job.id)
      .execute();
    return { volumeId: r.body.id as number, eventId: payload.eventId, jobId: job.id };
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
