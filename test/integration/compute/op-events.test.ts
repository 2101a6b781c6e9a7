import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { HOLD_MS } from '../../../src/modules/compute/status-hold.js';
import { eventsOf, runningInstance } from './ops-helpers.js';

/**
 * The event of a long operation appears when its work starts, a moment after the request, as on
 * the real service: an event poller made after the request (the Python SDK's EventPoller keeps
 * the events it finds when made and waits for a new one) finds it.
 */
describe('compute operation events', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  /** The events of an action on an instance, read from the table (no read of the feed). */
  const stored = async (id: number, action: string) =>
    t.ctx.db.db
      .selectFrom('events')
      .select(['id', 'status'])
      .where('entity_id', '=', id)
      .where('action', '=', action)
      .execute();

  /** What the SDK's poller reads: the first page, oldest first, of one action on one entity. */
  const poll = async (id: number, action: string) =>
    (
      await t.get('/v4/account/events', {
        filter: {
          '+order': 'asc',
          '+order_by': 'created',
          'entity.id': id,
          'entity.type': 'compute',
          action,
        },
      })
    ).body.data as { id: number; status: string }[];

  it('resizeComputeInstance: a poller made after a warm resize finds compute_resize as a new event, started, then finished', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`/v4/compute/instances/${id}/resize`, {
      type: 'g6-standard-2',
      migration_type: 'warm',
    });
    expect(r.status).toBe(200);
    // The request records the notification; the operation's event is not there yet.
    expect(await stored(id, 'compute_resize_create')).toHaveLength(1);
    const snapshot = await poll(id, 'compute_resize');
    expect(snapshot).toEqual([]);
    // The read woke the start: the next poll finds a new event, `started`.
    await t.runDue();
    const next = await poll(id, 'compute_resize');
    expect(next.map((e) => e.status)).toEqual(['started']);
    await t.settle();
    const done = await t.get(`/v4/account/events/${next[0]?.id}`);
    expect(done.body.status).toBe('finished');
    expect(done.body.percent_complete).toBe(100);
    expect((await t.get(`/v4/compute/instances/${id}`)).body.type).toBe('g6-standard-2');
  });

  it('resizeComputeInstance: nobody reading, the work starts after the hold of the job clock', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    await t.runDue();
    expect(await stored(id, 'compute_resize')).toEqual([]);
    t.clock.set(t.clock.nowMs() + HOLD_MS - 1);
    await t.runDue();
    expect(await stored(id, 'compute_resize')).toEqual([]);
    t.clock.set(t.clock.nowMs() + 1);
    await t.runDue();
    expect((await stored(id, 'compute_resize')).map((e) => e.status)).toEqual(['started']);
  });

  it('resizeComputeInstance: a read of the instance starts the work too, and counts as seeing resizing', async () => {
    await t.close();
    t = await buildTestApp({ timing: 'instant' });
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    expect((await t.get(`/v4/compute/instances/${id}`)).body.status).toBe('resizing');
    await t.runDue();
    expect((await stored(id, 'compute_resize')).length).toBe(1);
    // `resizing` was read: the work runs to its end with no further read and no wait.
    for (let i = 0; i < 10; i++) await t.runDue();
    expect((await stored(id, 'compute_resize')).map((e) => e.status)).toEqual(['finished']);
  });

  it('rebuildComputeInstance: the instance deleted before the work starts leaves no event of the rebuild', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`/v4/compute/instances/${id}/rebuild`, {
      image: 'compute/debian12',
      root_pass: 's3cr3t-P4ssw0rd!',
    });
    expect(r.status).toBe(200);
    expect((await t.del(`/v4/compute/instances/${id}`)).status).toBe(200);
    await t.settle();
    expect(await stored(id, 'compute_rebuild')).toEqual([]);
    expect((await eventsOf(t, id)).map((e) => e[0])).toContain('compute_delete');
  });
});
