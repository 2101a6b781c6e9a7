import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventsOf, instanceWith, REGION, vpc } from './fixtures.js';

describe('vpcs', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createVPC: a VPC with its subnets, default description, listed and viewable', async () => {
    const r = await t.post('/v4/vpcs', {
      label: 'my-vpc-1',
      region: REGION,
      subnets: [
        { label: 'a', ipv4: '10.0.0.0/24' },
        { label: 'b', ipv4: '172.16.4.0/22' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'my-vpc-1',
      description: '',
      region: REGION,
      created: '2026-03-01T12:00:00',
      updated: '2026-03-01T12:00:00',
    });
    expect(r.body.subnets.map((s: { label: string; ipv4: string }) => [s.label, s.ipv4])).toEqual([
      ['a', '10.0.0.0/24'],
      ['b', '172.16.4.0/22'],
    ]);
    expect(r.body.subnets[0].computes).toEqual([]);
    expect((await t.get(`/v4/vpcs/${r.body.id}`)).body).toEqual(r.body);
    const list = await t.get('/v4/vpcs');
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1 });
    expect(list.body.data[0]).toEqual(r.body);
    const filtered = await t.get('/v4/vpcs', { filter: { label: 'other' } });
    expect(filtered.body.results).toBe(0);
  });

  it('createVPC: writes vpc_create and one subnet_create per subnet', async () => {
    const v = await vpc(t, [
      ['a', '10.0.0.0/24'],
      ['b', '10.0.1.0/24'],
    ]);
    const evs = await eventsOf(t, ['vpc_create', 'subnet_create']);
    expect(evs.map((e) => [e.action, e.entity.type, e.entity.id])).toEqual([
      ['vpc_create', 'vpc', v.id],
      ['subnet_create', 'subnet', v.subnets[0]?.id],
      ['subnet_create', 'subnet', v.subnets[1]?.id],
    ]);
    expect(evs[1]?.secondary_entity).toMatchObject({ type: 'vpc', id: v.id, label: v.label });
    expect(evs[1]?.entity.url).toBe(`/v4/vpcs/${v.id}/subnets/${v.subnets[0]?.id}`);
  });

  it('createVPC: label rules (letters, digits, hyphens, no --, 1..64) and unique in the account', async () => {
    const bad = async (label: string) =>
      (await t.post('/v4/vpcs', { label, region: REGION })).body.errors?.[0]?.field;
    expect(await bad('has space')).toBe('label');
    expect(await bad('under_score')).toBe('label');
    expect(await bad('two--dashes')).toBe('label');
    expect(await bad('')).toBe('label');
    expect(await bad('x'.repeat(65))).toBe('label');
    expect((await t.post('/v4/vpcs', { label: 'x'.repeat(64), region: REGION })).status).toBe(200);
    expect((await t.post('/v4/vpcs', { label: 'a', region: REGION })).status).toBe(200);
    const dup = await t.post('/v4/vpcs', { label: 'a', region: REGION });
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([
      { field: 'label', reason: 'Label must be unique among your VPCs' },
    ]);
    // Another account may use the same label.
    const other = await t.ctx.db.transaction(async (tx) =>
      (await import('../../../src/modules/identity/bootstrap.js')).bootstrapAccount(tx, t.clock, {
        email: 'b@example.com',
        username: 'other-owner',
      }),
    );
    const r = await t.post('/v4/vpcs', { label: 'a', region: REGION }, { token: other.token });
    expect(r.status).toBe(200);
    expect((await t.get(`/v4/vpcs/${r.body.id}`)).status).toBe(404);
  });

  it('createVPC: description at most 255, region required and offering VPCs', async () => {
    const long = await t.post('/v4/vpcs', {
      label: 'd',
      region: REGION,
      description: 'x'.repeat(256),
    });
    expect(long.body.errors[0].field).toBe('description');
    const ok = await t.post('/v4/vpcs', {
      label: 'd',
      region: REGION,
      description: 'x'.repeat(255),
    });
    expect(ok.body.description).toHaveLength(255);
    expect((await t.post('/v4/vpcs', { label: 'e' })).body.errors[0].field).toBe('region');
    expect((await t.post('/v4/vpcs', { label: 'e', region: 'nowhere' })).body.errors[0].field).toBe(
      'region',
    );
    const noVpc = await t.post('/v4/vpcs', { label: 'e', region: 'us-east' });
    expect(noVpc.body.errors).toEqual([
      { field: 'region', reason: 'VPCs are not available in this region' },
    ]);
  });

  it('createVPC: a bad subnet creates nothing, every failing subnet field named', async () => {
    const r = await t.post('/v4/vpcs', {
      label: 'v',
      region: REGION,
      subnets: [
        { label: 'a', ipv4: '10.0.0.0/16' },
        { label: 'a', ipv4: '10.0.1.0/24' },
        { label: 'c', ipv4: '8.8.8.0/24' },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: 'subnets.1.label', reason: 'Label must be unique among the VPC\u2019s subnets' },
      { field: 'subnets.1.ipv4', reason: 'ipv4 must not overlap another subnet of the VPC' },
      { field: 'subnets.2.ipv4', reason: 'ipv4 must be inside an RFC 1918 private range' },
    ]);
    expect((await t.get('/v4/vpcs')).body.results).toBe(0);
    expect(await eventsOf(t, ['vpc_create', 'subnet_create'])).toEqual([]);
  });

  it('createVPC: needs the add_vpcs grant and the vpc:read_write scope; the creator gets read_write', async () => {
    const none = await createTestUser(t);
    expect(
      (await t.post('/v4/vpcs', { label: 'r', region: REGION }, { token: none.token })).status,
    ).toBe(403);
    const maker = await createTestUser(t, { global: { add_vpcs: true } });
    const v = await vpc(t, [], { token: maker.token, label: 'mine' });
    expect(
      (await t.put(`/v4/vpcs/${v.id}`, { description: 'x' }, { token: maker.token })).status,
    ).toBe(200);
    // Other restricted users do not see it.
    expect((await t.get(`/v4/vpcs/${v.id}`, { token: none.token })).status).toBe(404);
    expect((await t.get('/v4/vpcs', { token: none.token })).body.results).toBe(0);
    const scoped = await createTestUser(t, { restricted: false, scopes: 'vpc:read_only' });
    expect(
      (await t.post('/v4/vpcs', { label: 's', region: REGION }, { token: scoped.token })).status,
    ).toBe(401);
    // Reads need no particular scope (the reference lists none).
    const other = await createTestUser(t, { restricted: false, scopes: 'volumes:read_only' });
    expect((await t.get(`/v4/vpcs/${v.id}`, { token: other.token })).status).toBe(200);
  });

  it('updateVPC: label and description, label rules and uniqueness, vpc_update; read_only grant refused', async () => {
    const a = await vpc(t, [], { label: 'a' });
    await vpc(t, [], { label: 'b' });
    t.clock.advance(60_000);
    const r = await t.put(`/v4/vpcs/${a.id}`, { label: 'a2', description: 'hello' });
    expect(r.body).toMatchObject({
      label: 'a2',
      description: 'hello',
      updated: '2026-03-01T12:01:00',
    });
    expect((await t.put(`/v4/vpcs/${a.id}`, { label: 'b' })).body.errors[0].field).toBe('label');
    expect((await t.put(`/v4/vpcs/${a.id}`, { label: 'a--b' })).body.errors[0].field).toBe('label');
    expect((await t.put(`/v4/vpcs/${a.id}`, { label: 'a2' })).status).toBe(200);
    const evs = await eventsOf(t, ['vpc_update']);
    expect(evs.map((e) => e.entity.label)).toEqual(['a2', 'a2']);
    const ro = await createTestUser(t, {
      grants: [{ type: 'vpc', id: a.id, permissions: 'read_only' }],
    });
    expect((await t.get(`/v4/vpcs/${a.id}`, { token: ro.token })).status).toBe(200);
    expect((await t.put(`/v4/vpcs/${a.id}`, { label: 'z' }, { token: ro.token })).status).toBe(403);
    expect((await t.del(`/v4/vpcs/${a.id}`, { token: ro.token })).status).toBe(403);
  });

  it('deleteVPC: removes the VPC and all its subnets; vpc_delete and one subnet_delete each', async () => {
    const v = await vpc(t, [
      ['a', '10.0.0.0/24'],
      ['b', '10.0.1.0/24'],
    ]);
    expect((await t.del(`/v4/vpcs/${v.id}`)).body).toEqual({});
    expect((await t.get(`/v4/vpcs/${v.id}`)).status).toBe(404);
    expect((await t.get(`/v4/vpcs/${v.id}/subnets/${v.subnets[0]?.id}`)).status).toBe(404);
    const left = await t.ctx.db.db.selectFrom('vpc_subnets').select('id').execute();
    expect(left).toEqual([]);
    const evs = await eventsOf(t, ['vpc_delete', 'subnet_delete']);
    expect(evs.map((e) => [e.action, e.entity.id])).toEqual([
      ['vpc_delete', v.id],
      ['subnet_delete', v.subnets[0]?.id],
      ['subnet_delete', v.subnets[1]?.id],
    ]);
  });

  it('deleteVPC: nothing is deleted while any subnet is used by an interface, even of an inactive profile', async () => {
    const v = await vpc(t, [
      ['free', '10.0.0.0/24'],
      ['used', '10.0.1.0/24'],
    ]);
    const inst = await instanceWith(t, [
      { purpose: 'public' },
      { purpose: 'vpc', subnet_id: v.subnets[1]?.id },
    ]);
    const r = await t.del(`/v4/vpcs/${v.id}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/in use/);
    expect((await t.get(`/v4/vpcs/${v.id}`)).body.subnets).toHaveLength(2);
    expect(await eventsOf(t, ['vpc_delete', 'subnet_delete'])).toEqual([]);
    // Once the interface is gone, the delete goes through.
    const ifaces = (await t.get(inst.url)).body as { id: number; purpose: string }[];
    const vpcIface = ifaces.find((i) => i.purpose === 'vpc') as { id: number };
    expect((await t.del(`${inst.url}/${vpcIface.id}`)).status).toBe(200);
    expect((await t.del(`/v4/vpcs/${v.id}`)).status).toBe(200);
  });

  it('deleteVPC: an instance deletion frees its subnets', async () => {
    const v = await vpc(t);
    const inst = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }]);
    expect((await t.del(`/v4/vpcs/${v.id}`)).status).toBe(400);
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(200);
    await t.settle();
    expect((await t.get('/v4/vpcs/ips')).body.results).toBe(0);
    expect((await t.del(`/v4/vpcs/${v.id}`)).status).toBe(200);
  });

  it('getVPC: unknown, other-account and non-canonical ids are 404', async () => {
    const v = await vpc(t);
    expect((await t.get('/v4/vpcs/999')).status).toBe(404);
    expect((await t.get(`/v4/vpcs/0${v.id}`)).status).toBe(404);
    expect((await t.put('/v4/vpcs/999', { label: 'x' })).status).toBe(404);
    expect((await t.del('/v4/vpcs/999')).status).toBe(404);
  });

  it('getEvents: a restricted user sees the events of VPCs they hold a grant on', async () => {
    const a = await vpc(t, [], { label: 'seen' });
    const b = await vpc(t, [], { label: 'hidden' });
    const u = await createTestUser(t, {
      grants: [{ type: 'vpc', id: a.id, permissions: 'read_only' }],
    });
    const r = await t.get('/v4/account/events', {
      token: u.token,
      filter: { action: 'vpc_create' },
    });
    expect(r.body.data.map((e: { entity: { id: number } }) => e.entity.id)).toEqual([a.id]);
    expect(b.id).not.toBe(a.id);
  });

  it('getVPCDefaultRanges: the ranges subnets may use and those refused, as the subnet rules apply them', async () => {
    const r = await t.get('/v4/vpcs/default-ranges');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      default_ipv4_ranges: ['10.0.0.0/8', '192.168.0.0/17', '172.16.0.0/12'],
      forbidden_ipv4_ranges: ['192.168.128.0/17'],
    });
    // Every default range takes a subnet; the forbidden range refuses one.
    const ok = await t.post('/v4/vpcs', {
      label: 'ranges',
      region: REGION,
      subnets: (r.body.default_ipv4_ranges as string[]).map((cidr, i) => ({
        label: `s${i}`,
        ipv4: `${cidr.split('/')[0]}/24`,
      })),
    });
    expect(ok.status).toBe(200);
    const bad = await t.post('/v4/vpcs', {
      label: 'forbidden',
      region: REGION,
      subnets: [{ label: 'f', ipv4: `${r.body.forbidden_ipv4_ranges[0].split('/')[0]}/24` }],
    });
    expect(bad.status).toBe(400);
    // Any user of the account may read it, restricted with no grants included.
    const none = await createTestUser(t);
    expect((await t.get('/v4/vpcs/default-ranges', { token: none.token })).status).toBe(200);
  });
});
