import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOLD_MS } from '../../../src/modules/compute/status-hold.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { runningInstance } from './ops-helpers.js';

/**
 * Transitional statuses hold until a client has read them (or HOLD_MS has passed), under every
 * timing profile: a client that starts a reboot and polls for `rebooting` sees it.
 */
describe('transitional statuses under the instant profile', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ timing: 'instant' });
  });
  afterEach(async () => {
    await t.close();
  });

  /** The stored status, read behind the API's back (a read through the API counts as seen). */
  const stored = async (id: number) =>
    (
      await t.ctx.db.db
        .selectFrom('instances')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;
  const get = async (id: number) => (await t.get(`/v4/compute/instances/${id}`)).body.status;

  it('rebootComputeInstance: rebooting holds until a client reads it, then the reboot ends at once', async () => {
    const id = await runningInstance(t);
    expect((await t.post(`/v4/compute/instances/${id}/reboot`)).status).toBe(200);
    for (let i = 0; i < 5; i++) await t.runDue();
    expect(await stored(id)).toBe('rebooting');
    expect(await get(id)).toBe('rebooting');
    // The read makes the waiting job due now: no clock movement needed.
    await t.runDue();
    expect(await get(id)).toBe('running');
  });

  it('rebootComputeInstance: a list read counts as seen too', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/reboot`);
    await t.runDue();
    const list = await t.get('/v4/compute/instances');
    expect(list.body.data.find((i: { id: number }) => i.id === id).status).toBe('rebooting');
    await t.runDue();
    expect(await stored(id)).toBe('running');
  });

  it('rebootComputeInstance: unread, the status ends after HOLD_MS', async () => {
    const id = await runningInstance(t);
    const start = t.clock.nowMs();
    await t.post(`/v4/compute/instances/${id}/reboot`);
    await t.settle();
    expect(await stored(id)).toBe('running');
    expect(t.clock.nowMs() - start).toBe(HOLD_MS);
  });

  it('resizeComputeInstance: a cold resize shows resizing to a poller, then boots', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    await t.runDue();
    expect(await get(id)).toBe('resizing');
    await t.runDue();
    expect(await get(id)).toBe('running');
    expect((await t.get(`/v4/compute/instances/${id}`)).body.type).toBe('g6-standard-2');
  });

  it('rebuildComputeInstance: rebuilding is seen by a poller', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`/v4/compute/instances/${id}/rebuild`, {
      image: 'compute/debian12',
      root_pass: 's3cr3t-P4ssw0rd!',
    });
    expect(r.body.status).toBe('rebuilding');
    // The answer of the POST is not a poller's read.
    await t.runDue();
    expect(await stored(id)).toBe('rebuilding');
    expect(await get(id)).toBe('rebuilding');
    await t.runDue();
    expect(await get(id)).toBe('running');
  });

  it('migrateComputeInstance: a cold migration shows migrating, then offline while moved, then boots', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/migrate`, { region: 'us-central' });
    await t.runDue();
    expect(await get(id)).toBe('migrating');
    await t.runDue();
    expect(await get(id)).toBe('offline');
    await t.runDue();
    const after = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(after).toMatchObject({ status: 'running', region: 'us-central' });
  });

  it('shutdownComputeInstance: shutting_down is seen, then offline', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    await t.runDue();
    expect(await get(id)).toBe('shutting_down');
    await t.runDue();
    expect(await get(id)).toBe('offline');
  });
});
