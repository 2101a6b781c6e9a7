import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance } from './fixtures.js';

const vlanIfaces = (label: string, ipam = '10.0.0.1/24') => [
  { purpose: 'public' },
  { purpose: 'vlan', label, ipam_address: ipam },
];

describe('VLANs: life cycle and delete', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const configOf = async (id: number) =>
    (await t.get(`/v4/compute/instances/${id}/configs`)).body.data[0] as { id: number };

  it('deleteVLAN: a VLAN outlives its last interface until deleted, then is gone (404 after)', async () => {
    const a = await instance(t, { extra: { interfaces: vlanIfaces('backend') } });
    const cfg = await configOf(a.id);
    await t.clock.advance(60_000);
    const detached = await t.put(`/v4/compute/instances/${a.id}/configs/${cfg.id}`, {
      interfaces: [],
    });
    expect(detached.status, JSON.stringify(detached.body)).toBe(200);
    const kept = await t.get('/v4/networking/vlans');
    expect(kept.body.data).toEqual([
      { label: 'backend', region: 'us-east', computes: [], created: '2026-03-01T12:00:00' },
    ]);
    const del = await t.del('/v4/networking/vlans/us-east/backend');
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body).toEqual({});
    expect((await t.get('/v4/networking/vlans')).body.results).toBe(0);
    expect((await t.del('/v4/networking/vlans/us-east/backend')).status).toBe(404);
  });

  it('deleteComputeInterface: a VLAN named by an interface of the compute generation outlives it until deleted', async () => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-iad',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: 's3cr3t-P4ssw0rd!',
      booted: false,
      interface_generation: 'compute',
      interfaces: [
        { default_route: { ipv4: true }, public: {} },
        { vlan: { vlan_label: 'edge', ipam_address: '10.0.0.5/32' } },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await t.settle();
    const list = await t.get(`/v4/compute/instances/${r.body.id}/interfaces`);
    const vlanIface = (list.body.interfaces as { id: number; vlan: unknown }[]).find((i) => i.vlan);
    const gone = await t.del(`/v4/compute/instances/${r.body.id}/interfaces/${vlanIface?.id}`);
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    await t.settle();
    const kept = await t.get('/v4/networking/vlans');
    expect(kept.body.data).toMatchObject([{ label: 'edge', region: 'us-iad', computes: [] }]);
    expect((await t.del('/v4/networking/vlans/us-iad/edge')).status).toBe(200);
    expect((await t.get('/v4/networking/vlans')).body.results).toBe(0);
  });

  it('deleteVLAN: refused while an interface names it; unknown VLANs and regions are 404', async () => {
    const a = await instance(t, { extra: { interfaces: vlanIfaces('backend') } });
    const r = await t.del('/v4/networking/vlans/us-east/backend');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/attached to a compute instance/);
    expect((await t.get('/v4/networking/vlans')).body.data[0].computes).toEqual([a.id]);
    expect((await t.del('/v4/networking/vlans/us-east/other')).status).toBe(404);
    expect((await t.del('/v4/networking/vlans/us-west/backend')).status).toBe(404);
    expect((await t.del('/v4/networking/vlans/nowhere/backend')).status).toBe(404);
    // Deleting the instance detaches it; the VLAN stays until deleted.
    await t.del(`/v4/compute/instances/${a.id}`);
    await t.settle();
    expect((await t.get('/v4/networking/vlans')).body.data[0]).toMatchObject({
      label: 'backend',
      computes: [],
    });
    expect((await t.del('/v4/networking/vlans/us-east/backend')).status).toBe(200);
  });

  it('addComputeConfigInterface: a VLAN named by an added interface is recorded and kept when it goes', async () => {
    const a = await instance(t);
    const cfg = await configOf(a.id);
    const url = `/v4/compute/instances/${a.id}/configs/${cfg.id}/interfaces`;
    const added = await t.post(url, {
      purpose: 'vlan',
      label: 'late',
      ipam_address: '10.1.0.1/24',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    await t.del(`${url}/${added.body.id}`);
    const list = await t.get('/v4/networking/vlans');
    expect(list.body.data.map((v: { label: string }) => v.label)).toEqual(['late']);
    // A refused interface write records nothing.
    const bad = await t.post(url, {
      purpose: 'vlan',
      label: 'never',
      ipam_address: 'not-an-address',
    });
    expect(bad.status).toBe(400);
    expect((await t.get('/v4/networking/vlans')).body.results).toBe(1);
  });

  it('getVLANs and deleteVLAN: a restricted user sees detached VLANs and those of instances they see', async () => {
    const a = await instance(t, { extra: { interfaces: vlanIfaces('hidden') } });
    const b = await instance(t, { extra: { interfaces: vlanIfaces('mine', '10.0.0.2/24') } });
    const c = await instance(t, { extra: { interfaces: vlanIfaces('gone', '10.0.0.3/24') } });
    await t.put(`/v4/compute/instances/${c.id}/configs/${(await configOf(c.id)).id}`, {
      interfaces: [],
    });
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: b.id, permissions: 'read_only' }],
    });
    const seen = await t.get('/v4/networking/vlans', { token: u.token });
    expect(
      seen.body.data.map((v: { label: string; computes: number[] }) => [v.label, v.computes]),
    ).toEqual([
      ['gone', []],
      ['mine', [b.id]],
    ]);
    // The hidden VLAN is still attached: refused, as for anyone.
    expect((await t.del('/v4/networking/vlans/us-east/hidden', { token: u.token })).status).toBe(
      400,
    );
    expect((await t.del('/v4/networking/vlans/us-east/gone', { token: u.token })).status).toBe(200);
    expect(a.id).toBeGreaterThan(0);
  });

  it('deleteVLAN: another account neither sees nor deletes the VLAN; its own of the same label is its own', async () => {
    const a = await instance(t, { extra: { interfaces: vlanIfaces('shared') } });
    await t.put(`/v4/compute/instances/${a.id}/configs/${(await configOf(a.id)).id}`, {
      interfaces: [],
    });
    const other = await t.ctx.db.transaction((tx) =>
      bootstrapAccount(tx, t.clock, { email: 'b@example.com', username: 'other-owner' }),
    );
    expect((await t.get('/v4/networking/vlans', { token: other.token })).body.results).toBe(0);
    expect(
      (await t.del('/v4/networking/vlans/us-east/shared', { token: other.token })).status,
    ).toBe(404);
    expect((await t.get('/v4/networking/vlans')).body.results).toBe(1);
  });
});
