import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instanceWith, REGION, dualStackVpc } from './fixtures.js';

/** The interface identifier of an instance's SLAAC addresses (its MAC's EUI-64 groups). */
const eui = (id: number) =>
  [
    0xf03c,
    ((0x91 ^ (Math.floor(id / 2 ** 24) & 255)) << 8) | 0xff,
    0xfe00 | ((id >>> 16) & 255),
    id & 0xffff,
  ]
    .map((g) => g.toString(16))
    .join(':');

describe('vpc interface ipv6', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const dualStack = () => dualStackVpc(t);

  it('createComputeInstance: a VPC interface on a dual-stack subnet gets a SLAAC /64 by default; none on an IPv4-only one', async () => {
    const v = await dualStack();
    const inst = await instanceWith(t, [
      { purpose: 'public' },
      { purpose: 'vpc', subnet_id: v.dual },
      { purpose: 'vpc', subnet_id: v.v4 },
    ]);
    const list = (await t.get(inst.url)).body as { ipv6: unknown }[];
    expect(list[0]?.ipv6).toBeNull();
    expect(list[1]?.ipv6).toEqual({
      slaac: [{ range: '2001:db8:8500::/64', address: `2001:db8:8500:0:${eui(inst.id)}` }],
      ranges: [],
      is_public: false,
    });
    expect(list[2]?.ipv6).toBeNull();
  });

  it('updateComputeConfig: slaac, ranges and is_public as the SDKs send them; /64s never shared between instances', async () => {
    const v = await dualStack();
    const a = await instanceWith(t, [{ purpose: 'public' }]);
    const put = await t.put(`/v4/compute/instances/${a.id}/configs/${a.config}`, {
      interfaces: [
        {
          purpose: 'vpc',
          subnet_id: v.dual,
          ipv4: { nat_1_1: 'any' },
          ipv6: {
            slaac: [{ range: '/64' }],
            ranges: [{ range: '2001:db8:8500:2::/64' }],
            is_public: true,
          },
        },
      ],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.interfaces[0].ipv6).toEqual({
      slaac: [{ range: '2001:db8:8500::/64', address: `2001:db8:8500:0:${eui(a.id)}` }],
      ranges: [{ range: '2001:db8:8500:2::/64' }],
      is_public: true,
    });
    // A second instance gets the next free /64; a held one is refused.
    const b = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.dual }]);
    expect((await t.get(b.url)).body[0].ipv6.slaac[0].range).toBe('2001:db8:8500:1::/64');
    const clash = await t.post(b.url.replace(/interfaces$/, 'interfaces'), {
      purpose: 'vpc',
      subnet_id: v.dual,
      ipv6: { ranges: [{ range: '2001:db8:8500:2::/64' }] },
    });
    expect(clash.body.errors).toEqual([
      { field: 'ipv6.ranges.0.range', reason: 'The range is already in use in the subnet' },
    ]);
    // The /62 holds four /64s: a, b, and a's range hold three; the fourth, then full.
    const c = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.dual }]);
    expect((await t.get(c.url)).body[0].ipv6.slaac[0].range).toBe('2001:db8:8500:3::/64');
    const full = await t.post('/v4/compute/instances', {
      region: REGION,
      type: 'g6-nanode-1',
      interfaces: [{ purpose: 'vpc', subnet_id: v.dual }],
    });
    expect(full.body.errors).toEqual([
      { field: 'interfaces.0.ipv6.slaac.0.range', reason: 'The subnet has no free /64 left' },
    ]);
  });

  it('addComputeConfigInterface: ipv6 errors name the field; ipv6 on another purpose or an IPv4-only subnet is refused', async () => {
    const v = await dualStack();
    const inst = await instanceWith(t, []);
    await t.del(`${inst.url}/${(await t.get(inst.url)).body[0].id}`);
    const add = (body: Record<string, unknown>) => t.post(inst.url, body);
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { purpose: 'public', ipv6: { is_public: true } },
        'ipv6',
        'ipv6 is only allowed for vpc interfaces',
      ],
      [
        { purpose: 'vpc', subnet_id: v.v4, ipv6: { slaac: [{ range: 'auto' }] } },
        'ipv6',
        'The subnet has no IPv6 range: the interface cannot have IPv6',
      ],
      [
        { purpose: 'vpc', subnet_id: v.dual, ipv6: { slaac: [{ range: '/56' }] } },
        'ipv6.slaac.0.range',
        'The range must be a /64',
      ],
      [
        { purpose: 'vpc', subnet_id: v.dual, ipv6: { slaac: [{ range: '2001:db8:9999::/64' }] } },
        'ipv6.slaac.0.range',
        "The range must be inside the subnet's range 2001:db8:8500::/62",
      ],
      [
        { purpose: 'vpc', subnet_id: v.dual, ipv6: { slaac: [{}, {}] } },
        'ipv6.slaac',
        'At most 1 SLAAC range is allowed',
      ],
      [
        { purpose: 'vpc', subnet_id: v.dual, ipv6: { ranges: [{ range: 'bogus' }] } },
        'ipv6.ranges.0.range',
        'Must be an IPv6 network in CIDR form, a prefix length such as /64, or auto',
      ],
    ];
    for (const [body, field, reason] of cases) {
      const r = await add(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.errors).toEqual([{ field, reason }]);
    }
    expect((await t.get(inst.url)).body).toEqual([]);
  });

  it('updateComputeConfigInterface: ipv6 replaced when given, kept when omitted; a read-only grant cannot change it', async () => {
    const v = await dualStack();
    const inst = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.dual }]);
    const iface = (await t.get(inst.url)).body[0];
    const url = `${inst.url}/${iface.id}`;
    const kept = await t.put(url, { primary: true });
    expect(kept.body.ipv6).toEqual(iface.ipv6);
    const changed = await t.put(url, { ipv6: { is_public: true, ranges: [{ range: '/64' }] } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.ipv6).toEqual({
      slaac: iface.ipv6.slaac,
      ranges: [{ range: '2001:db8:8500:1::/64' }],
      is_public: true,
    });
    const ro = await createTestUser(t, {
      grants: [
        { type: 'compute', id: inst.id, permissions: 'read_only' },
        { type: 'vpc', id: v.id, permissions: 'read_only' },
      ],
    });
    const refused = await t.put(url, { ipv6: { is_public: false } }, { token: ro.token });
    expect(refused.status).toBe(403);
    expect((await t.get(url)).body.ipv6.is_public).toBe(true);
  });

  it("cloneComputeInstance: the clone's VPC interface takes new /64s of the subnet, as many as the source holds", async () => {
    const v = await dualStack();
    const src = await instanceWith(t, [
      { purpose: 'vpc', subnet_id: v.dual, ipv6: { ranges: [{ range: '/64' }], is_public: true } },
    ]);
    const r = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: REGION,
      type: 'g6-standard-1',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await t.settle();
    const cfg = (await t.get(`/v4/compute/instances/${r.body.id}/configs`)).body.data[0];
    expect(cfg.interfaces[0].ipv6).toEqual({
      slaac: [{ range: '2001:db8:8500:2::/64', address: `2001:db8:8500:2:${eui(r.body.id)}` }],
      ranges: [{ range: '2001:db8:8500:3::/64' }],
      is_public: true,
    });
  });

  it('getAllVPCIPv6s: SLAAC and routed ranges of VPC interfaces, by VPC and instance, freed on delete', async () => {
    const v = await dualStack();
    const inst = await instanceWith(t, [
      { purpose: 'public' },
      { purpose: 'vpc', subnet_id: v.dual, ipv6: { ranges: [{ range: '/64' }], is_public: true } },
    ]);
    const iface = (await t.get(inst.url)).body[1];
    const all = await t.get('/v4/vpcs/ipv6s');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(all.body.data[0]).toEqual({
      active: false,
      address: null,
      address_range: null,
      config_id: inst.config,
      gateway: null,
      interface_id: iface.id,
      compute_id: inst.id,
      nat_1_1: '',
      prefix: 64,
      region: REGION,
      subnet_id: v.dual,
      subnet_mask: '',
      vpc_id: v.id,
      database_id: null,
      nodebalancer_id: null,
      ipv6_range: '2001:db8:8500::/64',
      ipv6_is_public: true,
      ipv6_addresses: [{ slaac_address: `2001:db8:8500:0:${eui(inst.id)}` }],
    });
    expect(all.body.data[1]).toMatchObject({
      ipv6_range: '2001:db8:8500:1::/64',
      ipv6_addresses: [],
    });
    const one = await t.get(`/v4/vpcs/${v.id}/ipv6s`, { filter: { compute_id: inst.id } });
    expect(one.body.data).toEqual(all.body.data);
    // The IPv4 list is unchanged by IPv6; the instance's networking view lists its VPC IPv6.
    expect((await t.get('/v4/vpcs/ips')).body.results).toBe(1);
    const ips = await t.get(`/v4/compute/instances/${inst.id}/ips`);
    expect(ips.body.ipv6.vpc).toEqual(all.body.data);
    // Deleting the instance frees its /64s.
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(200);
    await t.settle();
    expect((await t.get('/v4/vpcs/ipv6s')).body.results).toBe(0);
    const next = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.dual }]);
    expect((await t.get(next.url)).body[0].ipv6.slaac[0].range).toBe('2001:db8:8500::/64');
    // A restricted user without a grant on the VPC sees none of it.
    const ro = await createTestUser(t, { grants: [] });
    expect((await t.get('/v4/vpcs/ipv6s', { token: ro.token })).body.results).toBe(0);
  });
});
