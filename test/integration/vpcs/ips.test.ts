import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instanceWith, REGION, vpc } from './fixtures.js';

describe('vpc ips', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getAllVPCIPs: every address and range of every vpc interface, with their fields', async () => {
    const v = await vpc(t, [['a', '10.0.0.0/24']]);
    const s = v.subnets[0]?.id as number;
    const inst = await instanceWith(
      t,
      [
        { purpose: 'public' },
        { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: 'any' }, ip_ranges: ['10.0.0.64/26'] },
      ],
      { booted: true },
    );
    const iface = ((await t.get(inst.url)).body as { id: number; purpose: string }[]).find(
      (i) => i.purpose === 'vpc',
    ) as { id: number };
    const r = await t.get('/v4/vpcs/ips');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, pages: 1, results: 2 });
    const common = {
      active: true,
      config_id: inst.config,
      interface_id: iface.id,
      compute_id: inst.id,
      region: REGION,
      subnet_id: s,
      vpc_id: v.id,
      database_id: null,
      nodebalancer_id: null,
    };
    expect(r.body.data).toEqual([
      {
        ...common,
        address: '10.0.0.2',
        address_range: null,
        gateway: '10.0.0.1',
        nat_1_1: inst.ipv4[0],
        prefix: 24,
        subnet_mask: '255.255.255.0',
      },
      {
        ...common,
        address: null,
        address_range: '10.0.0.64/26',
        gateway: null,
        nat_1_1: null,
        prefix: 26,
        subnet_mask: '255.255.255.192',
      },
    ]);
    // The same rows under the VPC, and in the instance's networking view.
    expect((await t.get(`/v4/vpcs/${v.id}/ips`)).body.data).toEqual(r.body.data);
    expect((await t.get(`/v4/compute/instances/${inst.id}/ips`)).body.ipv4.vpc).toEqual(
      r.body.data,
    );
  });

  it('getAllVPCIPs: one row per profile (duplicates across profiles), active only for the booted one', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const inst = await instanceWith(t, [{ purpose: 'vpc', subnet_id: s }], { booted: true });
    const second = await t.post(`/v4/compute/instances/${inst.id}/configs`, {
      label: 'second',
      devices: {},
      interfaces: [{ purpose: 'vpc', subnet_id: s, ipv4: { vpc: '10.0.0.2' } }],
    });
    expect(second.status).toBe(200);
    const rows = (await t.get('/v4/vpcs/ips')).body.data as {
      config_id: number;
      active: boolean;
      address: string;
    }[];
    expect(rows.map((r) => [r.config_id, r.active, r.address])).toEqual([
      [inst.config, true, '10.0.0.2'],
      [second.body.id, false, '10.0.0.2'],
    ]);
  });

  it('getAllVPCIPs: filterable on active, config_id, compute_id, region and vpc_id only', async () => {
    const v = await vpc(t);
    const w = await vpc(t, [['b', '10.1.0.0/24']]);
    const a = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }], {
      booted: true,
    });
    const b = await instanceWith(t, [{ purpose: 'vpc', subnet_id: w.subnets[0]?.id }]);
    const count = async (filter: unknown) =>
      (await t.get('/v4/vpcs/ips', { filter })).body.results as number;
    expect(await count({ active: true })).toBe(1);
    expect(await count({ active: false })).toBe(1);
    expect(await count({ vpc_id: w.id })).toBe(1);
    expect(await count({ compute_id: a.id })).toBe(1);
    expect(await count({ config_id: b.config })).toBe(1);
    expect(await count({ region: REGION })).toBe(2);
    expect(await count({ region: 'eu-central' })).toBe(0);
    const bad = await t.get('/v4/vpcs/ips', { filter: { address: '10.0.0.2' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({ field: 'X-Filter', reason: 'Cannot filter on address' });
    // The VPC's own list holds only its addresses.
    const own = await t.get(`/v4/vpcs/${v.id}/ips`);
    expect(own.body.data.map((r: { compute_id: number }) => r.compute_id)).toEqual([a.id]);
  });

  it('getAllVPCIPs: an instance deletion frees its addresses', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const a = await instanceWith(t, [{ purpose: 'vpc', subnet_id: s }]);
    expect((await t.get('/v4/vpcs/ips')).body.results).toBe(1);
    await t.del(`/v4/compute/instances/${a.id}`);
    await t.settle();
    expect((await t.get('/v4/vpcs/ips')).body.results).toBe(0);
    expect((await t.get(`/v4/vpcs/${v.id}/subnets/${s}`)).body.computes).toEqual([]);
    // Its address can be taken again.
    const b = await instanceWith(t, [{ purpose: 'vpc', subnet_id: s, ipv4: { vpc: '10.0.0.2' } }]);
    expect((await t.get(`/v4/vpcs/${v.id}/ips`)).body.data[0].compute_id).toBe(b.id);
  });

  it('getVPCIPs: needs ips:read_only; restricted users see only VPCs they hold a grant on', async () => {
    const v = await vpc(t);
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }]);
    const noScope = await createTestUser(t, { restricted: false, scopes: 'vpc:read_write' });
    expect((await t.get('/v4/vpcs/ips', { token: noScope.token })).status).toBe(401);
    expect((await t.get(`/v4/vpcs/${v.id}/ips`, { token: noScope.token })).status).toBe(401);
    const scoped = await createTestUser(t, { restricted: false, scopes: 'ips:read_only' });
    expect((await t.get('/v4/vpcs/ips', { token: scoped.token })).body.results).toBe(1);
    const none = await createTestUser(t);
    expect((await t.get('/v4/vpcs/ips', { token: none.token })).body.results).toBe(0);
    expect((await t.get(`/v4/vpcs/${v.id}/ips`, { token: none.token })).status).toBe(404);
    const ro = await createTestUser(t, {
      grants: [{ type: 'vpc', id: v.id, permissions: 'read_only' }],
    });
    expect((await t.get('/v4/vpcs/ips', { token: ro.token })).body.results).toBe(1);
    expect((await t.get('/v4/vpcs/999/ips')).status).toBe(404);
  });

  it('1:1 NAT: shown on the public address in every view; the address cannot be deleted while active', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const inst = await instanceWith(t, [{ purpose: 'public' }], { booted: true });
    const extra = (
      await t.post(`/v4/compute/instances/${inst.id}/ips`, { type: 'ipv4', public: true })
    ).body.address as string;
    // A specific NAT to the extra address, in the booted profile (takes effect after a reboot).
    const add = await t.post(inst.url, { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: extra } });
    expect(add.status).toBe(200);
    const nat = { vpc_id: v.id, subnet_id: s, address: '10.0.0.2' };
    expect((await t.get(`/v4/compute/instances/${inst.id}/ips/${extra}`)).body.vpc_nat_1_1).toEqual(
      nat,
    );
    expect((await t.get(`/v4/networking/ips/${extra}`)).body.vpc_nat_1_1).toEqual(nat);
    const listed = (await t.get('/v4/networking/ips')).body.data as {
      address: string;
      vpc_nat_1_1: unknown;
    }[];
    expect(listed.find((r) => r.address === extra)?.vpc_nat_1_1).toEqual(nat);
    expect(listed.find((r) => r.address === inst.ipv4[0])?.vpc_nat_1_1).toBeNull();
    expect((await t.get(`/v4/vpcs/${v.id}/ips`)).body.data[0].nat_1_1).toBe(extra);
    const refused = await t.del(`/v4/compute/instances/${inst.id}/ips/${extra}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/1:1 NAT/);
    await t.post(`/v4/compute/instances/${inst.id}/shutdown`);
    await t.settle();
    expect((await t.del(`/v4/compute/instances/${inst.id}/ips/${extra}`)).status).toBe(200);
  });
});
