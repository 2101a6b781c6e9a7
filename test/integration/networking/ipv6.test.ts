import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { fieldsOf, instance } from './fixtures.js';

describe('IPv6 pools and ranges', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getIPv6Pools: one pool per region, the /64 routed to every instance there', async () => {
    const r = await t.get('/v4/networking/ipv6/pools');
    expect(r.status).toBe(200);
    const east = r.body.data.find((p: { region: string }) => p.region === 'us-east');
    expect(east).toEqual({
      range: '2001:db8:0:1::',
      prefix: 64,
      region: 'us-east',
      route_target: '2001:db8:0:1:ffff:ffff:ffff:ffff',
    });
    expect(r.body.results).toBe(r.body.data.length);
  });

  it('postIPv6Range: a /64 routed to an instance by compute_id, listed, viewed by address without prefix, shown on the instance', async () => {
    const a = await instance(t);
    const r = await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64, compute_id: a.id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ range: '2001:db8:100::/64', route_target: a.ipv6.split('/')[0] });
    const list = await t.get('/v4/networking/ipv6/ranges');
    expect(list.body.data).toEqual([
      { range: '2001:db8:100::', prefix: 64, region: 'us-east', route_target: r.body.route_target },
    ]);
    const view = await t.get('/v4/networking/ipv6/ranges/2001:0db8:0100:0::');
    expect(view.body).toEqual({
      range: '2001:db8:100::',
      prefix: 64,
      region: 'us-east',
      is_bgp: false,
      computes: [a.id],
    });
    expect((await t.get('/v4/networking/ipv6/ranges/2001:db8:999::')).status).toBe(404);
    const ips = await t.get(`/v4/compute/instances/${a.id}/ips`);
    expect(ips.body.ipv6.global).toEqual(list.body.data);
  });

  it('postIPv6Range: exactly one of compute_id and route_target; route_target is an instance SLAAC address', async () => {
    const a = await instance(t);
    const slaac = a.ipv6.split('/')[0] as string;
    const both = await t.post('/v4/networking/ipv6/ranges', {
      prefix_length: 64,
      compute_id: a.id,
      route_target: slaac,
    });
    expect(both.status).toBe(400);
    expect(fieldsOf(both)).toEqual(['route_target']);
    expect((await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64 })).status).toBe(400);
    const bad = await t.post('/v4/networking/ipv6/ranges', {
      prefix_length: 56,
      route_target: '2001:db8:0:1::1',
    });
    expect(fieldsOf(bad)).toEqual(['route_target']);
    expect(
      fieldsOf(await t.post('/v4/networking/ipv6/ranges', { prefix_length: 48, compute_id: a.id })),
    ).toEqual(['prefix_length']);
    const ok = await t.post('/v4/networking/ipv6/ranges', {
      prefix_length: 56,
      route_target: slaac,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ range: '2001:db8:100::/56', route_target: slaac });
  });

  it('postIPv6Range: one range per region per account and one per instance SLAAC; another region is fine', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const west = await instance(t, { region: 'us-west' });
    expect(
      (await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64, compute_id: a.id })).status,
    ).toBe(200);
    const again = await t.post('/v4/networking/ipv6/ranges', {
      prefix_length: 64,
      compute_id: b.id,
    });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].reason).toMatch(/already has an IPv6 range in us-east/);
    const w = await t.post('/v4/networking/ipv6/ranges', {
      prefix_length: 56,
      compute_id: west.id,
    });
    expect(w.status).toBe(200);
    expect(w.body.range).toBe('2001:db8:300::/56');
  });

  it('postIPv6Range: ranges of different accounts never overlap; a /56 starts on a /56 boundary', async () => {
    const a = await instance(t);
    const r1 = await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64, compute_id: a.id });
    expect(r1.body.range).toBe('2001:db8:100::/64');
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other',
    });
    const b = await instance(t, { token: other.token });
    const r2 = await t.post(
      '/v4/networking/ipv6/ranges',
      { prefix_length: 64, compute_id: b.id },
      { token: other.token },
    );
    expect(r2.body.range).toBe('2001:db8:100:1::/64');
    const third = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'third@example.com',
      username: 'third',
    });
    const c = await instance(t, { token: third.token });
    const r3 = await t.post(
      '/v4/networking/ipv6/ranges',
      { prefix_length: 56, compute_id: c.id },
      { token: third.token },
    );
    expect(r3.body.range).toBe('2001:db8:100:100::/56');
    // Another account's range is not found by this one.
    expect((await t.get('/v4/networking/ipv6/ranges/2001:db8:100:1::')).status).toBe(404);
  });

  it('deleteIPv6Range: removes the range; a shared range cannot be deleted', async () => {
    const a = await instance(t);
    const b = await instance(t);
    await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64, compute_id: a.id });
    const share = await t.post('/v4/networking/ips/share', {
      compute_id: b.id,
      ips: ['2001:db8:100::'],
    });
    expect(share.status, JSON.stringify(share.body)).toBe(200);
    const view = await t.get('/v4/networking/ipv6/ranges/2001:db8:100::');
    expect(view.body).toMatchObject({ is_bgp: true, computes: [a.id, b.id] });
    const refused = await t.del('/v4/networking/ipv6/ranges/2001:db8:100::');
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/Shared IPv6 ranges cannot be deleted/);
    await t.post('/v4/networking/ips/share', { compute_id: b.id, ips: [] });
    expect((await t.del('/v4/networking/ipv6/ranges/2001:db8:100::')).status).toBe(200);
    expect((await t.get('/v4/networking/ipv6/ranges')).body.results).toBe(0);
  });

  it('assignIPs: a range moves to another instance and is routed to its SLAAC; at most one range per instance', async () => {
    const a = await instance(t);
    const b = await instance(t);
    await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64, compute_id: a.id });
    const r = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: '2001:db8:100::/64', compute_id: b.id }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const view = await t.get('/v4/networking/ipv6/ranges/2001:db8:100::');
    expect(view.body.computes).toEqual([b.id]);
    const list = await t.get('/v4/networking/ipv6/ranges');
    expect(list.body.data[0].route_target).toBe(b.ipv6.split('/')[0]);
    const noPrefix = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: '2001:db8:100::', compute_id: a.id }],
    });
    expect(fieldsOf(noPrefix)).toEqual(['assignments[0].address']);
    // A second range on b (inserted directly: the per-region limit is the API's) cannot join.
    await t.ctx.db.db
      .insertInto('ipv6_ranges')
      .values({
        account_id: t.admin.accountId,
        region: 'us-east',
        range: '2001:db8:101::',
        prefix: 64,
        instance_id: a.id,
        route_target: a.ipv6.split('/')[0] as string,
        created: '2026-03-01T12:00:00',
      })
      .execute();
    const two = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: '2001:db8:101::/64', compute_id: b.id }],
    });
    expect(two.status).toBe(400);
    expect(two.body.errors[0].reason).toMatch(/more than one IPv6 range/);
  });

  it('getIPv6Ranges: a restricted user sees only ranges of instances it has a grant on', async () => {
    const a = await instance(t);
    await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64, compute_id: a.id });
    const none = await createTestUser(t);
    expect((await t.get('/v4/networking/ipv6/ranges', { token: none.token })).body.results).toBe(0);
    expect(
      (await t.get('/v4/networking/ipv6/ranges/2001:db8:100::', { token: none.token })).status,
    ).toBe(404);
    const ro = await createTestUser(t, {
      grants: [{ type: 'compute', id: a.id, permissions: 'read_only' }],
    });
    expect((await t.get('/v4/networking/ipv6/ranges', { token: ro.token })).body.results).toBe(1);
    expect(
      (await t.del('/v4/networking/ipv6/ranges/2001:db8:100::', { token: ro.token })).status,
    ).toBe(403);
  });

  it('deleteComputeInstance: the instance releases its IPv6 range', async () => {
    const a = await instance(t);
    await t.post('/v4/networking/ipv6/ranges', { prefix_length: 64, compute_id: a.id });
    await t.del(`/v4/compute/instances/${a.id}`);
    await t.settle();
    expect((await t.get('/v4/networking/ipv6/ranges')).body.results).toBe(0);
  });
});

describe('VLANs', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getVLANs: one VLAN per region and label, made from the vlan interfaces of instances', async () => {
    const vlanIfaces = (label: string) => [
      { purpose: 'public' },
      { purpose: 'vlan', label, ipam_address: '10.0.0.1/24' },
    ];
    const a = await instance(t, { extra: { interfaces: vlanIfaces('backend') } });
    const b = await instance(t, {
      extra: {
        interfaces: [
          { purpose: 'public' },
          { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.2/24' },
        ],
      },
    });
    const c = await instance(t, {
      region: 'us-west',
      extra: { interfaces: vlanIfaces('backend') },
    });
    await instance(t);
    const r = await t.get('/v4/networking/vlans');
    expect(r.status).toBe(200);
    expect(r.body.results).toBe(2);
    const byRegion = Object.fromEntries(r.body.data.map((v: { region: string }) => [v.region, v]));
    expect(byRegion['us-east']).toEqual({
      label: 'backend',
      region: 'us-east',
      computes: [a.id, b.id],
      created: '2026-03-01T12:00:00',
    });
    expect(byRegion['us-west'].computes).toEqual([c.id]);
    const filtered = await t.get('/v4/networking/vlans', { filter: { region: 'us-west' } });
    expect(filtered.body.data.map((v: { region: string }) => v.region)).toEqual(['us-west']);
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: c.id, permissions: 'read_only' }],
    });
    const mine = await t.get('/v4/networking/vlans', { token: u.token });
    expect(mine.body.data.map((v: { computes: number[] }) => v.computes)).toEqual([[c.id]]);
  });
});
