import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance } from '../volumes/fixtures.js';

/** Secondary entities of compute events as the real wire records them (real-wire.json `events`). */
describe('event secondary entities (the real wire)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const eventsOf = async (id: number, action: string) =>
    (
      await t.get('/v4/account/events', {
        filter: { action, 'entity.id': id, 'entity.type': 'compute' },
      })
    ).body.data as Record<string, unknown>[];

  it('createComputeInstance: compute_create names the public image by its string id, compute_boot the config', async () => {
    const inst = await instance(t);
    const [create] = await eventsOf(inst.id, 'compute_create');
    expect(create?.secondary_entity).toEqual({
      id: 'compute/debian12',
      type: 'image',
      label: 'Debian 12',
      url: '/v4/images/compute/debian12',
    });
    const configs = (await t.get(`/v4/compute/instances/${inst.id}/configs`)).body.data;
    const [boot] = await eventsOf(inst.id, 'compute_boot');
    expect(boot?.secondary_entity).toEqual({
      id: configs[0].id,
      type: 'compute_config',
      label: configs[0].label,
      url: `/v4/compute/instances/${inst.id}/configs/${configs[0].id}`,
    });
  });

  it('createComputeInstance: an instance without an image has no secondary entity on compute_create', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const [create] = await eventsOf(inst.id, 'compute_create');
    expect(create?.secondary_entity).toBeNull();
  });

  it('rebootComputeInstance: names the config booted; shutdownComputeInstance names none', async () => {
    const inst = await instance(t);
    const config = (await t.get(`/v4/compute/instances/${inst.id}/configs`)).body.data[0];
    expect((await t.post(`/v4/compute/instances/${inst.id}/reboot`)).status).toBe(200);
    await t.settle();
    const [reboot] = await eventsOf(inst.id, 'compute_reboot');
    expect(reboot?.secondary_entity).toMatchObject({ type: 'compute_config', id: config.id });
    expect((await t.post(`/v4/compute/instances/${inst.id}/shutdown`)).status).toBe(200);
    await t.settle();
    const [shutdown] = await eventsOf(inst.id, 'compute_shutdown');
    expect(shutdown?.secondary_entity).toBeNull();
  });

  it('addComputeConfig: compute_config_create names the new config', async () => {
    const inst = await instance(t, 'g6-nanode-1', { empty: true });
    const r = await t.post(`/v4/compute/instances/${inst.id}/configs`, {
      label: 'second',
      devices: {},
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [ev] = await eventsOf(inst.id, 'compute_config_create');
    expect(ev?.secondary_entity).toEqual({
      id: r.body.id,
      type: 'compute_config',
      label: 'second',
      url: `/v4/compute/instances/${inst.id}/configs/${r.body.id}`,
    });
  });
});
