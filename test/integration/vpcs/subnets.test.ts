import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, DIALECT, type TestApp } from '../../helpers/build-test-app.js';
import { eventsOf, instanceWith, vpc } from './fixtures.js';

describe('vpc subnets', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const create = (vpcId: number, label: string, ipv4: string) =>
    t.post(`/v4/vpcs/${vpcId}/subnets`, { label, ipv4 });
  const reason = async (vpcId: number, ipv4: string) => {
    const r = await create(vpcId, `s${Math.floor(Math.random() * 1e9)}`, ipv4);
    return r.status === 200 ? 'ok' : (r.body.errors as { field: string; reason: string }[]);
  };

  it('createVPCSubnet: ipv4 must be a canonical CIDR inside RFC 1918', async () => {
    const v = await vpc(t, []);
    const form = [
      {
        field: 'ipv4',
        reason: 'Must be an IPv4 network in canonical CIDR form, such as 10.0.1.0/24',
      },
    ];
    expect(await reason(v.id, '10.0.0.1/24')).toEqual(form);
    expect(await reason(v.id, '10.0.0.0')).toEqual(form);
    expect(await reason(v.id, '010.0.0.0/24')).toEqual(form);
    expect(await reason(v.id, '10.0.0.0/024')).toEqual(form);
    expect(await reason(v.id, 'fd00::/64')).toEqual(form);
    const outside = [{ field: 'ipv4', reason: 'ipv4 must be inside an RFC 1918 private range' }];
    expect(await reason(v.id, '11.0.0.0/24')).toEqual(outside);
    expect(await reason(v.id, '172.32.0.0/24')).toEqual(outside);
    expect(await reason(v.id, '192.169.0.0/24')).toEqual(outside);
    // Wider than the private range it starts in.
    expect(await reason(v.id, '10.0.0.0/7')).toEqual(outside);
    expect(await reason(v.id, '192.168.0.0/15')).toEqual(outside);
    expect(await reason(v.id, '10.0.0.0/8')).toBe('ok');
    expect(await reason(v.id, '172.16.0.0/12')).toBe('ok');
    expect(await reason(v.id, '192.168.0.0/24')).toBe('ok');
  });

  it('createVPCSubnet: prefix length 1..29', async () => {
    const v = await vpc(t, []);
    const prefix = [{ field: 'ipv4', reason: 'The prefix length must be between 1 and 29' }];
    expect(await reason(v.id, '10.0.0.0/30')).toEqual(prefix);
    expect(await reason(v.id, '10.0.0.0/32')).toEqual(prefix);
    expect(await reason(v.id, '0.0.0.0/0')).toEqual(prefix);
    expect(await reason(v.id, '10.0.0.0/29')).toBe('ok');
  });

  it('createVPCSubnet: no overlap with 192.168.128.0/17', async () => {
    const v = await vpc(t, []);
    const pool = [{ field: 'ipv4', reason: 'ipv4 must not overlap 192.168.128.0/17' }];
    expect(await reason(v.id, '192.168.128.0/24')).toEqual(pool);
    expect(await reason(v.id, '192.168.255.248/29')).toEqual(pool);
    expect(await reason(v.id, '192.168.0.0/16')).toEqual(pool);
    expect(await reason(v.id, '192.168.64.0/18')).toBe('ok');
  });

  it('createVPCSubnet: no overlap with the VPC’s other subnets (other VPCs may overlap)', async () => {
    const v = await vpc(t, [['a', '10.0.0.0/16']]);
    const clash = [{ field: 'ipv4', reason: 'ipv4 must not overlap another subnet of the VPC' }];
    expect(await reason(v.id, '10.0.5.0/24')).toEqual(clash);
    expect(await reason(v.id, '10.0.0.0/8')).toEqual(clash);
    expect(await reason(v.id, '10.1.0.0/16')).toBe('ok');
    const w = await vpc(t, [['a', '10.0.0.0/16']]);
    expect(w.subnets[0]?.ipv4).toBe('10.0.0.0/16');
  });

  it('createVPCSubnet: label rules and unique in its VPC; subnet_create; listed, viewable', async () => {
    const v = await vpc(t, [['a', '10.0.0.0/24']]);
    const dup = await create(v.id, 'a', '10.0.1.0/24');
    expect(dup.body.errors).toEqual([
      { field: 'label', reason: 'Label must be unique among the VPC\u2019s subnets' },
    ]);
    expect((await create(v.id, 'b--c', '10.0.1.0/24')).body.errors[0].field).toBe('label');
    expect((await create(v.id, 'b_c', '10.0.1.0/24')).body.errors[0].field).toBe('label');
    expect((await create(v.id, 'x'.repeat(65), '10.0.1.0/24')).body.errors[0].field).toBe('label');
    const missing = await t.post(`/v4/vpcs/${v.id}/subnets`, {});
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'ipv4',
      'label',
    ]);
    const ok = await create(v.id, 'b', '10.0.1.0/24');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ label: 'b', ipv4: '10.0.1.0/24', computes: [] });
    // Another VPC may reuse the label.
    const w = await vpc(t, []);
    expect((await create(w.id, 'a', '10.0.0.0/24')).status).toBe(200);
    expect((await t.get(`/v4/vpcs/${v.id}/subnets/${ok.body.id}`)).body).toEqual(ok.body);
    const list = await t.get(`/v4/vpcs/${v.id}/subnets`);
    expect(list.body.data.map((s: { label: string }) => s.label)).toEqual(['a', 'b']);
    expect((await t.get(`/v4/vpcs/${v.id}/subnets`, { filter: { label: 'b' } })).body.results).toBe(
      1,
    );
    // A subnet is only reachable under its own VPC.
    expect((await t.get(`/v4/vpcs/${w.id}/subnets/${ok.body.id}`)).status).toBe(404);
    const evs = await eventsOf(t, ['subnet_create']);
    expect(evs.at(-2)?.entity).toMatchObject({ type: 'subnet', id: ok.body.id, label: 'b' });
  });

  it('createVPCSubnet: concurrent creates in one VPC never overlap', async () => {
    const v = await vpc(t, []);
    // Every one of these contains 10.0.1.0, so any two overlap.
    const cidrs = ['10.0.0.0/16', '10.0.1.0/24', '10.0.0.0/8', '10.0.0.0/20', '10.0.0.0/12'];
    const results = await Promise.all(cidrs.map((c, i) => create(v.id, `c${i}`, c)));
    const created = results.filter((r) => r.status === 200).map((r) => r.body.ipv4 as string);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    // Every pair of stored subnets is disjoint: all of these overlap each other.
    const stored = (await t.get(`/v4/vpcs/${v.id}/subnets`)).body.data as { ipv4: string }[];
    expect(stored).toHaveLength(1);
    expect(created).toEqual(stored.map((s) => s.ipv4));
    if (DIALECT === 'postgres') expect(results.filter((r) => r.status === 400)).toHaveLength(4);
  });

  it('updateVPCSubnet: only the label changes; rules, uniqueness, subnet_update', async () => {
    const v = await vpc(t, [
      ['a', '10.0.0.0/24'],
      ['b', '10.0.1.0/24'],
    ]);
    const id = v.subnets[0]?.id;
    t.clock.advance(1000);
    const r = await t.put(`/v4/vpcs/${v.id}/subnets/${id}`, { label: 'a2', ipv4: '10.9.0.0/24' });
    expect(r.body).toMatchObject({
      label: 'a2',
      ipv4: '10.0.0.0/24',
      updated: '2026-03-01T12:00:01',
    });
    expect((await t.put(`/v4/vpcs/${v.id}/subnets/${id}`, { label: 'b' })).body.errors).toEqual([
      { field: 'label', reason: 'Label must be unique among the VPC\u2019s subnets' },
    ]);
    expect((await t.put(`/v4/vpcs/${v.id}/subnets/${id}`, { label: '-a-' })).status).toBe(200);
    expect((await t.put(`/v4/vpcs/${v.id}/subnets/${id}`, { label: 'a b' })).status).toBe(400);
    const evs = await eventsOf(t, ['subnet_update']);
    expect(evs.map((e) => [e.entity.type, e.entity.label, e.secondary_entity?.id])).toEqual([
      ['subnet', 'a2', v.id],
      ['subnet', '-a-', v.id],
    ]);
  });

  it('deleteVPCSubnet: refused while an interface uses it; subnet_delete once free', async () => {
    const v = await vpc(t, [
      ['a', '10.0.0.0/24'],
      ['b', '10.0.1.0/24'],
    ]);
    const [a, b] = v.subnets as unknown as [{ id: number }, { id: number }];
    const inst = await instanceWith(t, [
      { purpose: 'public' },
      { purpose: 'vpc', subnet_id: a.id },
    ]);
    const refused = await t.del(`/v4/vpcs/${v.id}/subnets/${a.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/in use by a compute interface/);
    expect((await t.del(`/v4/vpcs/${v.id}/subnets/${b.id}`)).body).toEqual({});
    expect((await t.get(`/v4/vpcs/${v.id}/subnets/${b.id}`)).status).toBe(404);
    const evs = await eventsOf(t, ['subnet_delete']);
    expect(evs.map((e) => e.entity.id)).toEqual([b.id]);
    const iface = ((await t.get(inst.url)).body as { id: number; purpose: string }[]).find(
      (i) => i.purpose === 'vpc',
    ) as { id: number };
    await t.del(`${inst.url}/${iface.id}`);
    expect((await t.del(`/v4/vpcs/${v.id}/subnets/${a.id}`)).status).toBe(200);
  });

  it('getVPCSubnet: computes lists instances with a vpc interface on it, active or not, with its profile', async () => {
    const v = await vpc(t);
    const subnetId = v.subnets[0]?.id as number;
    const off = await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnetId }]);
    const on = await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnetId }], { booted: true });
    const ifaceOf = async (url: string) => ((await t.get(url)).body as { id: number }[])[0]?.id;
    const configOf = (url: string) => Number(/\/configs\/(\d+)/.exec(url)?.[1]);
    const s = (await t.get(`/v4/vpcs/${v.id}/subnets/${subnetId}`)).body;
    expect(s.computes).toEqual([
      {
        id: off.id,
        interfaces: [{ id: await ifaceOf(off.url), active: false, config_id: configOf(off.url) }],
      },
      {
        id: on.id,
        interfaces: [{ id: await ifaceOf(on.url), active: true, config_id: configOf(on.url) }],
      },
    ]);
    expect(configOf(on.url)).toBeGreaterThan(0);
    expect((await t.get(`/v4/vpcs/${v.id}`)).body.subnets[0].computes).toEqual(s.computes);
  });

  it('subnets: a restricted user needs a grant on the VPC; read_only cannot write', async () => {
    const v = await vpc(t);
    const none = await createTestUser(t);
    expect((await t.get(`/v4/vpcs/${v.id}/subnets`, { token: none.token })).status).toBe(404);
    const ro = await createTestUser(t, {
      grants: [{ type: 'vpc', id: v.id, permissions: 'read_only' }],
    });
    expect((await t.get(`/v4/vpcs/${v.id}/subnets`, { token: ro.token })).status).toBe(200);
    const w = await t.post(
      `/v4/vpcs/${v.id}/subnets`,
      { label: 'x', ipv4: '10.5.0.0/24' },
      { token: ro.token },
    );
    expect(w.status).toBe(403);
    const rw = await createTestUser(t, {
      grants: [{ type: 'vpc', id: v.id, permissions: 'read_write' }],
    });
    const ok = await t.post(
      `/v4/vpcs/${v.id}/subnets`,
      { label: 'x', ipv4: '10.5.0.0/24' },
      { token: rw.token },
    );
    expect(ok.status).toBe(200);
  });
});
