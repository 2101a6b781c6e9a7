import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance } from '../transfers/fixtures.js';

describe('firewalls apply', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ timing: 'instant' });
  });
  afterEach(async () => {
    await t.close();
  });

  const applyEvents = async (id: number) =>
    (
      await t.get('/v4/account/events', {
        headers: { 'X-Filter': JSON.stringify({ action: 'firewall_apply', 'entity.id': id }) },
      })
    ).body.data as Record<string, unknown>[];

  it('postApplyFirewalls: takes no body, answers {} and records firewall_apply on the instance, scheduled then finished', async () => {
    const a = await instance(t);
    const fw = await t.post('/v4/networking/firewalls', {
      label: 'fw-apply',
      rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT' },
      devices: { computes: [a.id] },
    });
    expect(fw.status, JSON.stringify(fw.body)).toBe(200);
    const r = await t.post(`/v4/compute/instances/${a.id}/firewalls/apply`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({});
    const [ev] = await applyEvents(a.id);
    expect(ev).toMatchObject({
      action: 'firewall_apply',
      status: 'scheduled',
      entity: { id: a.id, type: 'compute', label: a.label },
      secondary_entity: null,
      username: t.admin.username,
    });
    await t.settle();
    expect((await applyEvents(a.id))[0]).toMatchObject({
      status: 'finished',
      percent_complete: 100,
    });
    // The instance is not held: its owner's actions go on meanwhile.
    await t.post(`/v4/compute/instances/${a.id}/firewalls/apply`);
    expect((await t.post(`/v4/compute/instances/${a.id}/reboot`)).status).toBe(200);
  });

  it('postApplyFirewalls: 404 for an unknown instance; a read-only user is refused and nothing is recorded', async () => {
    const a = await instance(t);
    expect((await t.post('/v4/compute/instances/999999/firewalls/apply')).status).toBe(404);
    const ro = await createTestUser(t, {
      grants: [{ type: 'compute', id: a.id, permissions: 'read_only' }],
    });
    const r = await t.post(`/v4/compute/instances/${a.id}/firewalls/apply`, undefined, {
      token: ro.token,
    });
    expect(r.status).toBe(403);
    const rw = await createTestUser(t, {
      grants: [{ type: 'compute', id: a.id, permissions: 'read_write' }],
    });
    const ok = await t.post(`/v4/compute/instances/${a.id}/firewalls/apply`, undefined, {
      token: rw.token,
    });
    expect(ok.status).toBe(200);
    expect(await applyEvents(a.id)).toHaveLength(1);
  });

  it('postApplyFirewalls: an instance deleted before the apply runs fails its event', async () => {
    const a = await instance(t);
    expect((await t.post(`/v4/compute/instances/${a.id}/firewalls/apply`)).status).toBe(200);
    expect((await t.del(`/v4/compute/instances/${a.id}`)).status).toBe(200);
    await t.settle();
    const [ev] = await applyEvents(a.id);
    expect(ev).toMatchObject({ status: 'failed' });
  });
});
