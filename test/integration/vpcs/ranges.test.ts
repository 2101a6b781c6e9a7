import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { REGION } from './fixtures.js';

/** A region with VPCs but without `Custom VPC IPv4 Ranges`. */
const PLAIN = 'eu-central';
const DEFAULTS = [{ range: '10.0.0.0/8' }, { range: '192.168.0.0/17' }, { range: '172.16.0.0/12' }];

describe('VPC IPv4 ranges, VPC types and the refusal texts', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createVPC: without ipv4 a VPC has the default ranges and type regular, as have its subnets', async () => {
    const r = await t.post('/v4/vpcs', {
      label: 'v1',
      region: PLAIN,
      ipv4: null,
      vpc_type: null,
      subnets: [{ label: 's', ipv4: '10.0.0.0/24' }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.ipv4).toEqual(DEFAULTS);
    expect(r.body.vpc_type).toBe('regular');
    expect(r.body.subnets[0]).toMatchObject({ vpc_type: 'regular', databases: [] });
    const again = await t.get(`/v4/vpcs/${r.body.id}`);
    expect(again.body.ipv4).toEqual(DEFAULTS);
  });

  it('createVPC: ipv4 ranges where the region takes them; subnets must lie inside one', async () => {
    const r = await t.post('/v4/vpcs', {
      label: 'v1',
      region: REGION,
      ipv4: [{ range: '10.118.0.0/20' }, { range: '172.20.0.0/16' }],
      subnets: [{ label: 's', ipv4: '10.118.1.0/24' }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.ipv4).toEqual([{ range: '10.118.0.0/20' }, { range: '172.20.0.0/16' }]);
    expect((await t.get('/v4/vpcs')).body.data[0].ipv4).toEqual(r.body.ipv4);
    // A subnet outside every range of the VPC: refused, later as at create.
    const out = await t.post(`/v4/vpcs/${r.body.id}/subnets`, { label: 'o', ipv4: '10.0.0.0/24' });
    expect(out.status).toBe(400);
    expect(out.body.errors[0].field).toBe('ipv4');
    expect(out.body.errors[0].reason).toMatch(/inside one of the VPC.s IPv4 ranges/);
    const inside = await t.post(`/v4/vpcs/${r.body.id}/subnets`, {
      label: 'i',
      ipv4: '172.20.3.0/24',
    });
    expect(inside.status).toBe(200);
    const atCreate = await t.post('/v4/vpcs', {
      label: 'v2',
      region: REGION,
      ipv4: [{ range: '10.118.0.0/20' }],
      subnets: [{ label: 's', ipv4: '10.119.0.0/24' }],
    });
    expect(atCreate.status).toBe(400);
    expect(atCreate.body.errors.map((e: { field: string }) => e.field)).toEqual(['subnets.0.ipv4']);
    expect((await t.get('/v4/vpcs')).body.results).toBe(1);
  });

  it('createVPC: each ipv4 range is a network inside the default ranges, none overlapping', async () => {
    const refused = async (ipv4: unknown) => {
      const r = await t.post('/v4/vpcs', { label: 'v', region: REGION, ipv4 });
      expect(r.status).toBe(400);
      return r.body.errors.map((e: { field: string }) => e.field);
    };
    expect(await refused([{ range: '10.0.0.1/24' }])).toEqual(['ipv4[0].range']);
    expect(await refused([{ range: null }])).toEqual(['ipv4[0].range']);
    expect(await refused([{ range: '11.0.0.0/16' }])).toEqual(['ipv4[0].range']);
    expect(await refused([{ range: '192.168.128.0/24' }])).toEqual(['ipv4[0].range']);
    expect(await refused([{ range: '10.0.0.0/30' }])).toEqual(['ipv4[0].range']);
    expect(await refused([{ range: '10.0.0.0/16' }, { range: '10.0.1.0/24' }])).toEqual([
      'ipv4[1].range',
    ]);
    expect((await t.get('/v4/vpcs')).body.results).toBe(0);
  });

  it('createVPC: ipv4 where the region lacks Custom VPC IPv4 Ranges is refused with the real words', async () => {
    const r = await t.post('/v4/vpcs', {
      label: 'v',
      region: PLAIN,
      ipv4: [{ range: '10.0.0.0/8' }, { range: '172.16.0.0/12' }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: 'ipv4', reason: 'Customer defined IPv4 ranges are not supported in this region' },
      { field: 'ipv4[0].range', reason: 'You must not use any custom IPv4 range for VPCs.' },
      { field: 'ipv4[1].range', reason: 'You must not use any custom IPv4 range for VPCs.' },
    ]);
    // An empty list asks for nothing.
    const empty = await t.post('/v4/vpcs', { label: 'v', region: PLAIN, ipv4: [] });
    expect(empty.status).toBe(200);
    expect(empty.body.ipv4).toEqual(DEFAULTS);
  });

  it('updateVPC: replaces the ranges when every subnet still lies inside; refusals are answered together', async () => {
    const v = (
      await t.post('/v4/vpcs', {
        label: 'v1',
        region: REGION,
        ipv4: [{ range: '10.118.0.0/20' }],
        subnets: [{ label: 's', ipv4: '10.118.1.0/24' }],
      })
    ).body;
    const moved = await t.put(`/v4/vpcs/${v.id}`, { ipv4: [{ range: '10.200.0.0/20' }] });
    expect(moved.status).toBe(400);
    expect(moved.body.errors[0].field).toBe('ipv4');
    expect(moved.body.errors[0].reason).toMatch(/10\.118\.1\.0\/24/);
    const both = await t.put(`/v4/vpcs/${v.id}`, {
      label: 'bad_label!',
      ipv4: [{ range: '10.0.0.0/8' }, { range: 'nope' }],
    });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'ipv4[1].range',
      'label',
    ]);
    expect((await t.get(`/v4/vpcs/${v.id}`)).body).toMatchObject({
      label: 'v1',
      ipv4: [{ range: '10.118.0.0/20' }],
    });
    const ok = await t.put(`/v4/vpcs/${v.id}`, {
      label: 'v1',
      ipv4: [{ range: '10.118.0.0/16' }, { range: '192.168.0.0/17' }],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.ipv4).toEqual([{ range: '10.118.0.0/16' }, { range: '192.168.0.0/17' }]);
    // Omitted, null or empty: kept.
    const kept = await t.put(`/v4/vpcs/${v.id}`, { description: 'd', ipv4: null });
    expect(kept.body.ipv4).toEqual(ok.body.ipv4);
    const evs = await t.get('/v4/account/events', { filter: { action: 'vpc_update' } });
    expect(evs.body.results).toBe(2);
  });

  it('updateVPC: the recorded refusal in a region without custom ranges, with the label error', async () => {
    const v = (await t.post('/v4/vpcs', { label: 'v1', region: PLAIN })).body;
    const r = await t.put(`/v4/vpcs/${v.id}`, {
      description: 'updated description',
      ipv4: [{ range: '10.0.0.0/8' }, { range: '172.16.0.0/12' }, { range: '192.168.0.0/17' }],
      label: 'updated-invalid_label!',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: 'ipv4', reason: 'Customer defined IPv4 ranges are not supported in this region' },
      { field: 'ipv4[0].range', reason: 'You must not use any custom IPv4 range for VPCs.' },
      { field: 'ipv4[1].range', reason: 'You must not use any custom IPv4 range for VPCs.' },
      { field: 'ipv4[2].range', reason: 'You must not use any custom IPv4 range for VPCs.' },
      { field: 'label', reason: 'Must only use ASCII letters, numbers, and underscores' },
    ]);
  });

  it('createVPC: vpc_type rdma is kept and shown on the VPC and its subnets; rdma refuses IPv6', async () => {
    const r = await t.post('/v4/vpcs', {
      label: 'r1',
      region: REGION,
      vpc_type: 'rdma',
      subnets: [{ label: 's', ipv4: '192.168.0.0/25' }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ vpc_type: 'rdma', ipv6: null });
    expect(r.body.subnets[0].vpc_type).toBe('rdma');
    const subnets = await t.get(`/v4/vpcs/${r.body.id}/subnets`);
    expect(subnets.body.data[0].vpc_type).toBe('rdma');
    // The recorded refusal.
    const v6 = await t.post('/v4/vpcs', {
      label: 'r2',
      region: REGION,
      vpc_type: 'rdma',
      ipv6: [{ range: '/52' }],
    });
    expect(v6.status).toBe(400);
    expect(v6.body.errors).toEqual([
      { field: 'ipv6', reason: 'RDMA VPCs cannot have IPv6 ranges' },
    ]);
    // Its subnets cannot have IPv6 either (the VPC has none).
    const s6 = await t.post(`/v4/vpcs/${r.body.id}/subnets`, {
      label: 's6',
      ipv4: '192.168.1.0/24',
      ipv6: [{ range: 'auto' }],
    });
    expect(s6.status).toBe(400);
    const bad = await t.post('/v4/vpcs', { label: 'r3', region: REGION, vpc_type: 'fast' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('vpc_type');
    // Not changed by an update.
    const u = await t.put(`/v4/vpcs/${r.body.id}`, { vpc_type: 'regular', label: 'r1b' });
    expect(u.body.vpc_type).toBe('rdma');
  });

  it('createVPCSubnet and updateVPCSubnet: the refusal texts the clients match', async () => {
    const v = (await t.post('/v4/vpcs', { label: 'v1', region: REGION })).body;
    const noPrefix = await t.post(`/v4/vpcs/${v.id}/subnets`, { label: 's', ipv4: '10.0.0.0' });
    expect(noPrefix.status).toBe(400);
    expect(noPrefix.body.errors[0].field).toBe('ipv4');
    expect(noPrefix.body.errors[0].reason).toContain('Must be an IPv4 network');
    const s = (await t.post(`/v4/vpcs/${v.id}/subnets`, { label: 's', ipv4: '10.0.0.0/24' })).body;
    const label = await t.put(`/v4/vpcs/${v.id}/subnets/${s.id}`, {
      label: 'invalid_subnet_label!!',
    });
    expect(label.status).toBe(400);
    expect(label.body.errors).toEqual([
      { field: 'label', reason: 'Must only use ASCII letters, numbers, and underscores' },
    ]);
    const created = await t.post(`/v4/vpcs/${v.id}/subnets`, {
      ipv4: '192.168.0.0/25',
      label: 'computego-vpc-test_invalid_label!1785265674655323000',
    });
    expect(created.body.errors).toEqual([
      { field: 'label', reason: 'Must only use ASCII letters, numbers, and underscores' },
    ]);
  });
});
