import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { fieldsOf, instance } from './fixtures.js';

type Ips = {
  ipv4: {
    public: { address: string }[];
    private: { address: string }[];
    shared: { address: string }[];
  };
  ipv6: { global: { range: string; prefix: number; route_target: string }[] };
};

describe('IP assign and share', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const ipsOf = async (id: number): Promise<Ips> =>
    (await t.get(`/v4/compute/instances/${id}/ips`)).body;
  const publics = async (id: number) => (await ipsOf(id)).ipv4.public.map((a) => a.address).sort();
  const addPublic = async (id: number) => {
    const r = await t.post(`/v4/compute/instances/${id}/ips`, { type: 'ipv4', public: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.address as string;
  };

  it('assignIPs: swaps the public addresses of two instances in one request', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const [ipA] = a.ipv4 as [string];
    const [ipB] = b.ipv4 as [string];
    const r = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [
        { address: ipA, compute_id: b.id },
        { address: ipB, compute_id: a.id },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({});
    expect(await publics(a.id)).toEqual([ipB]);
    expect(await publics(b.id)).toEqual([ipA]);
    expect((await t.get(`/v4/networking/ips/${ipA}`)).body.compute_id).toBe(b.id);
  });

  it('assignIPv4s: the same operation; moving the last public IPv4 away is refused and nothing moves', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const [ipA] = a.ipv4 as [string];
    const r = await t.post('/v4/networking/ipv4/assign', {
      region: 'us-east',
      assignments: [{ address: ipA, compute_id: b.id }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/no public IPv4/);
    expect(await publics(a.id)).toEqual([ipA]);
    const extra = await addPublic(a.id);
    const ok = await t.post('/v4/networking/ipv4/assign', {
      region: 'us-east',
      assignments: [{ address: extra, compute_id: b.id }],
    });
    expect(ok.status).toBe(200);
    expect(await publics(b.id)).toEqual([...b.ipv4, extra].sort());
  });

  it('assignIPs: at most one private IPv4 per instance after the assignment', async () => {
    const a = await instance(t, { extra: { private_ip: true } });
    const b = await instance(t, { extra: { private_ip: true } });
    const privA = (await ipsOf(a.id)).ipv4.private[0]?.address as string;
    const r = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: privA, compute_id: b.id }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/more than one private/);
  });

  it('assignIPs: everything in the named region; unknown addresses, regions and instances are refused', async () => {
    const a = await instance(t);
    const west = await instance(t, { region: 'us-west' });
    const extra = await addPublic(a.id);
    const cross = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: extra, compute_id: west.id }],
    });
    expect(cross.status).toBe(400);
    expect(cross.body.errors[0].reason).toMatch(/one region/);
    const wrongRegion = await t.post('/v4/networking/ips/assign', {
      region: 'us-west',
      assignments: [{ address: extra, compute_id: west.id }],
    });
    expect(fieldsOf(wrongRegion)).toEqual(['assignments[0].address']);
    expect(
      fieldsOf(await t.post('/v4/networking/ips/assign', { region: 'mars', assignments: [] })),
    ).toEqual(['region']);
    const unknown = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: '203.0.113.200', compute_id: a.id }],
    });
    expect(fieldsOf(unknown)).toEqual(['assignments[0].address']);
    expect(fieldsOf(await t.post('/v4/networking/ips/assign', {}))).toEqual([
      'assignments',
      'region',
    ]);
    expect(await publics(a.id)).toEqual([...a.ipv4, extra].sort());
  });

  it('assignIPs: read_write is needed on every instance involved, the source included', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const extra = await addPublic(a.id);
    const body = { region: 'us-east', assignments: [{ address: extra, compute_id: b.id }] };
    const onlyTarget = await createTestUser(t, {
      grants: [
        { type: 'compute', id: b.id, permissions: 'read_write' },
        { type: 'compute', id: a.id, permissions: 'read_only' },
      ],
    });
    expect(
      (await t.post('/v4/networking/ips/assign', body, { token: onlyTarget.token })).status,
    ).toBe(403);
    const scoped = await createTestUser(t, { restricted: false, scopes: 'ips:read_write' });
    expect((await t.post('/v4/networking/ips/assign', body, { token: scoped.token })).status).toBe(
      401,
    );
    const both = await createTestUser(t, {
      grants: [
        { type: 'compute', id: b.id, permissions: 'read_write' },
        { type: 'compute', id: a.id, permissions: 'read_write' },
      ],
    });
    expect((await t.post('/v4/networking/ips/assign', body, { token: both.token })).status).toBe(
      200,
    );
  });

  it('shareIPs: shares addresses with an instance, lists them as shared; an empty list removes every share', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const [ipA] = a.ipv4 as [string];
    const r = await t.post('/v4/networking/ips/share', { compute_id: b.id, ips: [ipA] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await ipsOf(b.id)).ipv4.shared.map((x) => x.address)).toEqual([ipA]);
    expect(await publics(a.id)).toEqual([ipA]);
    const own = await t.post('/v4/networking/ipv4/share', { compute_id: a.id, ips: [ipA] });
    expect(fieldsOf(own)).toEqual(['ips[0]']);
    expect((await t.post('/v4/networking/ipv4/share', { compute_id: b.id, ips: [] })).status).toBe(
      200,
    );
    expect((await ipsOf(b.id)).ipv4.shared).toEqual([]);
  });

  it('assignIPs: a shared address cannot be swapped', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const c = await instance(t);
    const extra = await addPublic(a.id);
    expect(
      (await t.post('/v4/networking/ips/share', { compute_id: b.id, ips: [extra] })).status,
    ).toBe(200);
    const r = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: extra, compute_id: c.id }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/shared and cannot be swapped/);
  });

  it('assignIPs and shareIPs: an address with an active 1:1 NAT to a VPC interface cannot move', async () => {
    const a = await instance(t);
    const b = await instance(t);
    const extra = await addPublic(a.id);
    const config = await t.ctx.db.db
      .selectFrom('configs')
      .select('id')
      .where('instance_id', '=', a.id)
      .executeTakeFirstOrThrow();
    await t.ctx.db.db
      .insertInto('config_interfaces')
      .values({
        config_id: config.id,
        instance_id: a.id,
        position: 1,
        purpose: 'vpc',
        label: null,
        ipam_address: null,
        is_primary: 0,
        vpc_id: 1,
        subnet_id: 1,
        ipv4_vpc: '10.0.0.2',
        ipv4_nat_1_1: extra,
        ip_ranges: null,
      })
      .execute();
    await t.ctx.db.db
      .updateTable('instances')
      .set({ last_booted_config_id: config.id, status: 'running' })
      .where('id', '=', a.id)
      .execute();
    const assign = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: extra, compute_id: b.id }],
    });
    expect(assign.status).toBe(400);
    expect(assign.body.errors[0].reason).toMatch(/1:1 NAT/);
    const share = await t.post('/v4/networking/ips/share', { compute_id: b.id, ips: [extra] });
    expect(share.status).toBe(400);
    expect(share.body.errors[0].reason).toMatch(/1:1 NAT/);
  });

  it('assignIPs: 64 concurrent assigns and shares never leave an instance without a public IPv4 nor give an address twice', async () => {
    const insts = [await instance(t), await instance(t), await instance(t), await instance(t)];
    for (const i of insts) await addPublic(i.id);
    const all = async () =>
      t.ctx.db.db
        .selectFrom('ip_addresses')
        .select(['address', 'instance_id', 'kind'])
        .where('kind', '=', 'public')
        .execute();
    const addresses = (await all()).map((r) => r.address);
    const pick = <T>(xs: readonly T[], n: number) => xs[n % xs.length] as T;
    const reqs = Array.from({ length: 64 }, (_, n) => {
      if (n % 4 === 3)
        return t.post('/v4/networking/ips/share', {
          compute_id: pick(insts, n).id,
          ips: n % 8 === 3 ? [] : [pick(addresses, n * 7)],
        });
      return t.post('/v4/networking/ips/assign', {
        region: 'us-east',
        assignments: [
          { address: pick(addresses, n), compute_id: pick(insts, n * 3 + 1).id },
          { address: pick(addresses, n + 3), compute_id: pick(insts, n).id },
        ],
      });
    });
    const results = await Promise.all(reqs);
    expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    expect(results.some((r) => r.status === 200)).toBe(true);
    const rows = await all();
    expect(new Set(rows.map((r) => r.address)).size).toBe(rows.length);
    expect(rows.map((r) => r.address).sort()).toEqual([...addresses].sort());
    for (const i of insts) expect((await publics(i.id)).length).toBeGreaterThanOrEqual(1);
  });
});
