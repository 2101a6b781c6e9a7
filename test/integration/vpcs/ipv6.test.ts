import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { eventsOf, REGION } from './fixtures.js';

/** us-iad: dual stack with large prefixes (pool 2001:db8:8500::/40); eu-central: /52 only. */
const POOL = '2001:db8:8500::';

describe('vpc ipv6', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const create = (body: Record<string, unknown>, token?: string) =>
    t.post(
      '/v4/vpcs',
      { label: `v${Math.floor(Math.random() * 1e9)}`, region: REGION, ...body },
      token ? { token } : {},
    );

  it('createVPC: ipv6 by prefix length, auto and omitted range take the lowest free blocks of the pool', async () => {
    const a = await create({ ipv6: [{ range: '/52' }] });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body.ipv6).toEqual([{ range: `${POOL}/52` }]);
    const b = await create({ ipv6: [{ range: 'auto' }] });
    expect(b.body.ipv6).toEqual([{ range: '2001:db8:8500:1000::/52' }]);
    const c = await create({ ipv6: [{}] });
    expect(c.body.ipv6).toEqual([{ range: '2001:db8:8500:2000::/52' }]);
    // A /48 starts at the next aligned /48 boundary after the /52s.
    const d = await create({ ipv6: [{ range: '/48', allocation_class: 'x' }] });
    expect(d.body.ipv6).toEqual([{ range: '2001:db8:8501::/48' }]);
    // IPv4-only VPCs answer ipv6 null (the wire), and their subnets too.
    const e = await create({ subnets: [{ label: 's', ipv4: '10.0.0.0/24' }] });
    expect(e.body.ipv6).toBeNull();
    expect(e.body.subnets[0].ipv6).toBeNull();
    expect((await t.get(`/v4/vpcs/${a.body.id}`)).body.ipv6).toEqual([{ range: `${POOL}/52` }]);
  });

  it('createVPC: ranges never overlap across accounts of a region; a freed range is taken again', async () => {
    const a = await create({ ipv6: [{ range: `${POOL}/52` }] });
    expect(a.status).toBe(200);
    const { token } = await secondAccount(t);
    const clash = await create({ ipv6: [{ range: '2001:db8:8500::/48' }] }, token);
    expect(clash.status).toBe(400);
    expect(clash.body.errors).toEqual([
      {
        field: 'ipv6[0].range',
        reason: 'The range overlaps another VPC\u2019s range in this region',
      },
    ]);
    const next = await create({ ipv6: [{ range: '/52' }] }, token);
    expect(next.body.ipv6).toEqual([{ range: '2001:db8:8500:1000::/52' }]);
    expect((await t.del(`/v4/vpcs/${a.body.id}`)).status).toBe(200);
    const again = await create({ ipv6: [{ range: '/52' }] });
    expect(again.body.ipv6).toEqual([{ range: `${POOL}/52` }]);
  });

  it('createVPC: ipv6 errors name the field and create nothing', async () => {
    const cases: [unknown, string, string][] = [
      [[{ range: '/52' }, { range: '/52' }], 'ipv6', 'A VPC can have at most one IPv6 range'],
      [
        [{ range: '2600:3c11:e5b9::/5a' }],
        'ipv6[0].range',
        'Must be an IPv6 network in CIDR form, a prefix length such as /52, or auto',
      ],
      [
        [{ range: '2001:db8:8500::1/52' }],
        'ipv6[0].range',
        'Must be an IPv6 network: the bits after the prefix length must be zero',
      ],
      [
        [{ range: '/56' }],
        'ipv6[0].range',
        'The prefix length must be one this region offers: /52, /48, /44',
      ],
      [
        [{ range: '2001:db8:9000::/52' }],
        'ipv6[0].range',
        "The range must be inside the region's VPC IPv6 pool 2001:db8:8500::/40",
      ],
    ];
    for (const [ipv6, field, reason] of cases) {
      const r = await create({ ipv6 });
      expect(r.status, JSON.stringify(ipv6)).toBe(400);
      expect(r.body.errors).toEqual([{ field, reason }]);
    }
    const small = await create({ region: 'eu-central', ipv6: [{ range: '/48' }] });
    expect(small.body.errors).toEqual([
      { field: 'ipv6[0].range', reason: 'The prefix length must be one this region offers: /52' },
    ]);
    const noV6 = await create({ region: 'ap-west', ipv6: [{ range: '/52' }] });
    expect(noV6.body.errors).toEqual([
      { field: 'ipv6', reason: 'IPv6 VPCs are not available in this region' },
    ]);
    // A subnet with ipv6 in an IPv4-only VPC; a bad subnet range rolls the VPC's range back.
    const sub = await create({ subnets: [{ label: 's', ipv4: '10.0.0.0/24', ipv6: [{}] }] });
    expect(sub.body.errors).toEqual([
      {
        field: 'subnets.0.ipv6',
        reason: 'The VPC has no IPv6 range: its subnets cannot have one',
      },
    ]);
    const bad = await create({
      ipv6: [{ range: '/52' }],
      subnets: [{ label: 's', ipv4: '10.0.0.0/24', ipv6: [{ range: '/64' }] }],
    });
    expect(bad.body.errors).toEqual([
      { field: 'subnets.0.ipv6[0].range', reason: 'The prefix length must be between 52 and 62' },
    ]);
    expect(await t.ctx.db.db.selectFrom('vpcs').select('id').execute()).toEqual([]);
  });

  it('createVPC: subnets carve their ranges from the VPC range without overlap', async () => {
    const r = await create({
      ipv6: [{ range: '/52' }],
      subnets: [
        { label: 'a', ipv4: '10.0.0.0/24', ipv6: [{ range: '/62' }] },
        { label: 'b', ipv4: '10.0.1.0/24', ipv6: [{ range: 'auto' }] },
        { label: 'c', ipv4: '10.0.2.0/24' },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.subnets.map((s: { ipv6: unknown }) => s.ipv6)).toEqual([
      [{ range: `${POOL}/62` }],
      [{ range: '2001:db8:8500:100::/56' }],
      null,
    ]);
  });

  it('createVPCSubnet: ipv6 from the VPC range, explicit or by length; overlap and bounds refused', async () => {
    const v = (await create({ ipv6: [{ range: '/52' }] })).body;
    const url = `/v4/vpcs/${v.id}/subnets`;
    const a = await t.post(url, { label: 'a', ipv4: '10.0.0.0/24', ipv6: [{ range: '/56' }] });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body.ipv6).toEqual([{ range: `${POOL}/56` }]);
    const b = await t.post(url, {
      label: 'b',
      ipv4: '10.0.1.0/24',
      ipv6: [{ range: '2001:db8:8500:200::/56' }],
    });
    expect(b.body.ipv6).toEqual([{ range: '2001:db8:8500:200::/56' }]);
    const c = await t.post(url, { label: 'c', ipv4: '10.0.2.0/24', ipv6: [{ range: '/56' }] });
    expect(c.body.ipv6).toEqual([{ range: '2001:db8:8500:100::/56' }]);
    const clash = await t.post(url, {
      label: 'd',
      ipv4: '10.0.3.0/24',
      ipv6: [{ range: '2001:db8:8500:200::/60' }],
    });
    expect(clash.body.errors).toEqual([
      { field: 'ipv6[0].range', reason: 'The range overlaps another subnet of the VPC' },
    ]);
    const outside = await t.post(url, {
      label: 'd',
      ipv4: '10.0.3.0/24',
      ipv6: [{ range: '2001:db8:8501::/56' }],
    });
    expect(outside.body.errors).toEqual([
      {
        field: 'ipv6[0].range',
        reason: "The range must be inside the VPC's range 2001:db8:8500::/52",
      },
    ]);
    const bad = await t.post(url, {
      label: 'd',
      ipv4: '10.0.3.0/24',
      ipv6: [{ range: '2600:3c11:e5b9::/5a' }],
    });
    expect(bad.body.errors[0]).toMatchObject({ field: 'ipv6[0].range' });
    expect(bad.body.errors[0].reason).toContain('Must be an IPv6 network');
    // The VPC's /52 holds sixteen /56: the rest are taken, then it is full.
    for (let i = 0; i < 13; i++) {
      const s = await t.post(url, {
        label: `f${i}`,
        ipv4: `10.1.${i}.0/24`,
        ipv6: [{ range: '/56' }],
      });
      expect(s.status, JSON.stringify(s.body)).toBe(200);
    }
    const full = await t.post(url, { label: 'g', ipv4: '10.2.0.0/24', ipv6: [{ range: '/56' }] });
    expect(full.body.errors).toEqual([
      { field: 'ipv6[0].range', reason: 'No IPv6 range of this length is left in the VPC' },
    ]);
    const created = await eventsOf(t, ['subnet_create']);
    expect(created).toHaveLength(16);
  });

  it('createVPCSubnet: a read-only grant cannot add an IPv6 subnet; the read-write grant can', async () => {
    const v = (await create({ ipv6: [{ range: '/52' }] })).body;
    const ro = await createTestUser(t, {
      grants: [{ type: 'vpc', id: v.id, permissions: 'read_only' }],
    });
    const rw = await createTestUser(t, {
      grants: [{ type: 'vpc', id: v.id, permissions: 'read_write' }],
    });
    const body = { label: 'a', ipv4: '10.0.0.0/24', ipv6: [{ range: '/56' }] };
    expect((await t.post(`/v4/vpcs/${v.id}/subnets`, body, { token: ro.token })).status).toBe(403);
    expect((await t.get(`/v4/vpcs/${v.id}`, { token: ro.token })).body.subnets).toEqual([]);
    const ok = await t.post(`/v4/vpcs/${v.id}/subnets`, body, { token: rw.token });
    expect(ok.status).toBe(200);
    // An update never changes the ranges (the clients send none; an ipv6 given is dropped).
    const upd = await t.put(`/v4/vpcs/${v.id}`, { label: 'renamed', ipv6: [{ range: '/48' }] });
    expect(upd.body.ipv6).toEqual([{ range: `${POOL}/52` }]);
  });

  it('getRegionsVPCAvailability: every region, VPCs where offered, the IPv6 lengths still free', async () => {
    const list = await t.get('/v4/regions/vpc-availability');
    expect(list.status).toBe(200);
    const byId = new Map(
      (list.body.data as { region: string }[]).map((r) => [r.region, r] as const),
    );
    expect(list.body.results).toBe(byId.size);
    expect(byId.get('us-iad')).toEqual({
      region: 'us-iad',
      available: true,
      available_ipv6_prefix_lengths: [52, 48, 44],
    });
    expect(byId.get('eu-central')).toMatchObject({ available_ipv6_prefix_lengths: [52] });
    expect(byId.get('ap-west')).toEqual({
      region: 'ap-west',
      available: true,
      available_ipv6_prefix_lengths: [],
    });
    expect(byId.get('us-east')).toMatchObject({ available: false });
    // The /40 pool holds sixteen /44: take them all, and /44 is no longer offered.
    for (let i = 0; i < 15; i++)
      expect((await create({ ipv6: [{ range: '/44' }] })).status).toBe(200);
    const one = await t.get('/v4/regions/us-iad/vpc-availability');
    expect(one.body.available_ipv6_prefix_lengths).toEqual([52, 48, 44]);
    expect((await create({ ipv6: [{ range: '/44' }] })).status).toBe(200);
    const after = await t.get('/v4/regions/us-iad/vpc-availability');
    expect(after.body).toEqual({
      region: 'us-iad',
      available: true,
      available_ipv6_prefix_lengths: [],
    });
    const full = await create({ ipv6: [{ range: '/52' }] });
    expect(full.body.errors).toEqual([
      { field: 'ipv6[0].range', reason: 'No /52 IPv6 range is left in this region' },
    ]);
    expect((await t.get('/v4/regions/nowhere/vpc-availability')).status).toBe(404);
    const paged = await t.get('/v4/regions/vpc-availability?page=2&page_size=25');
    expect(paged.body).toMatchObject({ page: 2, data: [] });
  });

  it('getRegions: the dual-stack regions carry the VPC IPv6 capabilities the SDKs look for', async () => {
    const regions = (await t.get('/v4/regions')).body.data as {
      id: string;
      capabilities: string[];
    }[];
    const dual = regions.filter((r) => r.capabilities.includes('VPC IPv6 Stack')).map((r) => r.id);
    expect(dual.sort()).toEqual(['eu-central', 'us-iad']);
    for (const r of regions) {
      expect(r.capabilities.includes('VPC Dual Stack')).toBe(dual.includes(r.id));
      if (dual.includes(r.id)) expect(r.capabilities).toContain('VPCs');
    }
  });
});
