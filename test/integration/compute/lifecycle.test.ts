import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';

describe('compute instance life cycle', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createComputeInstance: an image deployment provisions, boots and runs, with its events in order', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-standard-2',
      image: 'compute/debian12',
      root_pass: STRONG,
      label: 'web-1',
    });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('provisioning');
    expect(r.body.ipv4).toHaveLength(1);
    expect(r.body.ipv6).toMatch(/^2001:db8:.*\/128$/);
    const id = r.body.id;

    const created = await t.get('/v4/account/events', {
      filter: { 'entity.id': id, action: 'compute_create' },
    });
    expect(created.body.data).toHaveLength(1);
    expect(created.body.data[0].status).toBe('scheduled');

    await t.settle();
    const inst = await t.get(`/v4/compute/instances/${id}`);
    expect(inst.body.status).toBe('running');

    const events = await t.get('/v4/account/events', {
      filter: { 'entity.id': id, 'entity.type': 'compute', '+order_by': 'id', '+order': 'asc' },
    });
    expect(events.body.data.map((e: any) => [e.action, e.status])).toEqual([
      ['compute_create', 'finished'],
      ['compute_boot', 'finished'],
    ]);
    expect(events.body.data[0].percent_complete).toBe(100);
  });

  it('shutdownComputeInstance: running goes through shutting_down to offline; busy meanwhile', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
    });
    await t.settle();
    const id = r.body.id;
    expect((await t.post(`/v4/compute/instances/${id}/shutdown`)).status).toBe(200);
    expect((await t.get(`/v4/compute/instances/${id}`)).body.status).toBe('shutting_down');
    const busy = await t.post(`/v4/compute/instances/${id}/reboot`);
    expect(busy.status).toBe(400);
    expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${id}`)).body.status).toBe('offline');
  });

  it('deleteComputeInstance: deleting, then gone with its addresses released', async () => {
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('offline');
    expect((await t.del(`/v4/compute/instances/${r.body.id}`)).body).toEqual({});
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('deleting');
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).status).toBe(404);
    const ips = await t.ctx.db.db.selectFrom('ip_addresses').selectAll().execute();
    expect(ips).toHaveLength(0);
  });
});
