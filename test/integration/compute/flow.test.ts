import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';
/** How far the poller moves the clock between two looks (fast timing: steps of 250 ms and more). */
const POLL_MS = 100;

interface Seen {
  status: string;
  percent: number | null;
}

describe('the path an infrastructure tool drives', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  /**
   * Polls the events API, as a tool's waiter does, for the newest `action` event of the instance
   * until it is finished or failed: look, let the worker run what is due, move time a little.
   * Returns every distinct (status, percent_complete) seen on the way.
   */
  const waitForEvent = async (computeId: number, action: string) => {
    const seen: Seen[] = [];
    for (let i = 0; i < 500; i++) {
      const r = await t.get('/v4/account/events', { filter: { 'entity.id': computeId, action } });
      expect(r.status).toBe(200);
      const ev = r.body.data[0];
      if (ev) {
        const last = seen.at(-1);
        if (!last || last.status !== ev.status || last.percent !== ev.percent_complete) {
          seen.push({ status: ev.status, percent: ev.percent_complete });
        }
        if (ev.status === 'finished' || ev.status === 'failed') return { event: ev, seen };
      }
      await t.runDue();
      t.clock.advance(POLL_MS);
    }
    throw new Error(`${action} did not finish`);
  };
  /** Percentages of the `started` observations rise strictly. */
  const expectRising = (seen: Seen[]) => {
    const started = seen.filter((s) => s.status === 'started').map((s) => s.percent as number);
    expect(started.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < started.length; i++)
      expect(started[i] as number).toBeGreaterThan(started[i - 1] as number);
  };
  const instance = async (id: number) => (await t.get(`/v4/compute/instances/${id}`)).body;

  it('createComputeInstance: from an image to deleted, through disks, configs and a reboot into a new profile', async () => {
    // Create from an image, with a public interface on its config.
    const created = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      label: 'flow-1',
      interfaces: [{ purpose: 'public' }],
    });
    expect(created.status).toBe(200);
    const id = created.body.id as number;
    expect(created.body.status).toBe('provisioning');

    const create = await waitForEvent(id, 'compute_create');
    expect(create.event).toMatchObject({
      status: 'finished',
      percent_complete: 100,
      entity: { id, type: 'compute', label: 'flow-1' },
    });
    expect(create.seen[0]).toEqual({ status: 'scheduled', percent: null });
    expectRising(create.seen);
    const boot = await waitForEvent(id, 'compute_boot');
    expect(boot.event.status).toBe('finished');
    expectRising(boot.seen);
    expect((await instance(id)).status).toBe('running');

    const disksUrl = `/v4/compute/instances/${id}/disks`;
    const configsUrl = `/v4/compute/instances/${id}/configs`;
    const [bootDisk, swapDisk] = (await t.get(disksUrl)).body.data;
    const [firstConfig] = (await t.get(configsUrl)).body.data;
    expect(firstConfig.interfaces[0]).toMatchObject({ purpose: 'public', active: true });

    // The image fills the plan: no room for another disk until the boot disk shrinks, off.
    const full = await t.post(disksUrl, { size: 4096, label: 'data' });
    expect(full.status).toBe(400);
    expect(full.body.errors[0].field).toBe('size');
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    expect((await waitForEvent(id, 'compute_shutdown')).event.status).toBe('finished');
    expect((await t.post(`${disksUrl}/${bootDisk.id}/resize`, { size: 8192 })).status).toBe(200);
    const resize = await waitForEvent(id, 'disk_resize');
    expect(resize.event).toMatchObject({
      status: 'finished',
      secondary_entity: { type: 'disk', id: bootDisk.id },
    });
    expectRising(resize.seen);
    await t.post(`/v4/compute/instances/${id}/boot`);
    await waitForEvent(id, 'compute_boot');
    expect((await instance(id)).status).toBe('running');

    // On the running instance: a new disk, then a profile that uses it.
    const disk = await t.post(disksUrl, { size: 4096, label: 'data' });
    expect(disk.status).toBe(200);
    expect(disk.body.status).toBe('not ready');
    const diskCreate = await waitForEvent(id, 'disk_create');
    expect(diskCreate.event).toMatchObject({
      status: 'finished',
      secondary_entity: { id: disk.body.id, label: 'data' },
    });
    expect(diskCreate.seen[0]).toEqual({ status: 'scheduled', percent: null });
    expectRising(diskCreate.seen);
    expect((await t.get(`${disksUrl}/${disk.body.id}`)).body.status).toBe('ready');

    const config = await t.post(configsUrl, {
      label: 'data-profile',
      devices: {
        sda: { disk_id: bootDisk.id },
        sdb: { disk_id: swapDisk.id },
        sdc: { disk_id: disk.body.id },
      },
      interfaces: [],
    });
    expect(config.status).toBe(200);
    expect(config.body.interfaces[0]).toMatchObject({ purpose: 'public', active: false });

    // Reboot into the new profile: it becomes the active one.
    expect(
      (await t.post(`/v4/compute/instances/${id}/reboot`, { config_id: config.body.id })).status,
    ).toBe(200);
    expect((await instance(id)).status).toBe('rebooting');
    const reboot = await waitForEvent(id, 'compute_reboot');
    expect(reboot.event.status).toBe('finished');
    expect((await instance(id)).status).toBe('running');
    expect((await t.get(`${configsUrl}/${config.body.id}`)).body.interfaces[0].active).toBe(true);
    expect((await t.get(`${configsUrl}/${firstConfig.id}`)).body.interfaces[0].active).toBe(false);
    // The profile in use cannot go; the old one can.
    expect((await t.del(`${configsUrl}/${config.body.id}`)).status).toBe(400);
    expect((await t.del(`${configsUrl}/${firstConfig.id}`)).status).toBe(200);

    // Shut down, delete, gone.
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    await waitForEvent(id, 'compute_shutdown');
    expect((await instance(id)).status).toBe('offline');
    expect((await t.del(`/v4/compute/instances/${id}`)).status).toBe(200);
    const del = await waitForEvent(id, 'compute_delete');
    expect(del.event.status).toBe('finished');
    expect((await t.get(`/v4/compute/instances/${id}`)).status).toBe(404);
    expect((await t.get(disksUrl)).status).toBe(404);
  });
});
