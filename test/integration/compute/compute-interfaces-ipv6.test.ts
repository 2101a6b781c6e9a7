import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createInstance, type Iface, STRONG } from './interfaces.fixtures.js';
import { dualStackVpc } from '../vpcs/fixtures.js';

/** IPv6 on interfaces of the compute generation, their IPv6 default route, and the upgrade's preview. */
describe('interfaces of the compute generation: IPv6', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  type V6 = {
    slaac: { range: string; address: string }[];
    ranges: { range: string }[];
    is_public: boolean;
  };
  type Full = Iface & {
    mac_address: string;
    vpc: (NonNullable<Iface['vpc']> & { ipv6: V6 | null }) | null;
    public:
      | (NonNullable<Iface['public']> & {
          ipv6: { ranges: { range: string; route_target: string | null }[]; slaac: unknown[] };
        })
      | null;
  };

  const dualStack = () => dualStackVpc(t);
  const bare = () => createInstance(t, { interface_generation: 'compute' });
  const fields = (r: { body: { errors?: { field?: string }[] } }) =>
    (r.body.errors ?? []).map((e) => e.field);
  /** `2001:db8:8500:1::/64` → its first 4 groups, to test an address is inside it. */
  const net64 = (range: string) => range.split('::/')[0] as string;

  it('createComputeInstance: a VPC interface on a dual-stack subnet has IPv6 (a SLAAC /64), answered in list and view', async () => {
    const v = await dualStack();
    const inst = await createInstance(t, {
      interface_generation: 'compute',
      interfaces: [
        { default_route: { ipv4: true, ipv6: true }, public: {} },
        { vpc: { subnet_id: v.dual } },
        { vlan: { vlan_label: 'test-vlan', ipam_address: '10.0.0.5/32' } },
      ],
    });
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const list = (await t.get(base)).body.interfaces as Full[];
    const [pub, vpc, vlan] = list as [Full, Full, Full];
    const slaac = ((await t.get(`/v4/compute/instances/${inst.id}`)).body.ipv6 as string).split(
      '/',
    )[0];
    expect(pub.public?.ipv6.slaac).toEqual([{ address: slaac, prefix: 64 }]);
    expect(pub.default_route).toEqual({ ipv4: true, ipv6: true });
    expect(vpc.default_route).toEqual({ ipv4: false, ipv6: false });
    expect(vpc.vpc?.ipv6?.is_public).toBe(false);
    expect(vpc.vpc?.ipv6?.ranges).toEqual([]);
    expect(vpc.vpc?.ipv6?.slaac).toHaveLength(1);
    const s0 = vpc.vpc?.ipv6?.slaac[0] as { range: string; address: string };
    expect(s0.range).toMatch(/\/64$/);
    expect(s0.range.startsWith(net64(v.dualRange).slice(0, 14))).toBe(true);
    expect(s0.address.startsWith(net64(s0.range))).toBe(true);
    // Both families on every interface (the real service's VLAN interfaces answer both false).
    expect(vlan.default_route).toEqual({ ipv4: false, ipv6: false });
    expect((await t.get(`${base}/${vpc.id}`)).body.vpc.ipv6).toEqual(vpc.vpc?.ipv6);
  });

  it('getComputeInterfaceSettings: every interface able to carry IPv6 is eligible for its default route', async () => {
    const v = await dualStack();
    const inst = await createInstance(t, {
      interface_generation: 'compute',
      interfaces: [
        { default_route: { ipv4: true, ipv6: true }, public: {} },
        { vpc: { subnet_id: v.dual } },
        { vpc: { subnet_id: v.v4 } },
      ],
    });
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const [pub, dual, v4] = (await t.get(base)).body.interfaces as Full[];
    const s = await t.get(`${base}/settings`);
    expect(s.body.default_route).toEqual({
      ipv4_interface_id: pub?.id,
      ipv4_eligible_interface_ids: [pub?.id, dual?.id, v4?.id],
      ipv6_interface_id: pub?.id,
      ipv6_eligible_interface_ids: [pub?.id, dual?.id],
    });
    const moved = await t.put(`${base}/settings`, {
      default_route: { ipv6_interface_id: dual?.id },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.default_route.ipv6_interface_id).toBe(dual?.id);
    const refused = await t.put(`${base}/settings`, {
      default_route: { ipv6_interface_id: v4?.id },
    });
    expect(fields(refused)).toEqual(['default_route.ipv6_interface_id']);
  });

  it('addComputeInterface: a dual-stack VPC interface takes the free IPv6 default route; an IPv4-only one cannot', async () => {
    const v = await dualStack();
    const inst = await bare();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const v4only = await t.post(base, {
      vpc: { subnet_id: v.v4 },
      default_route: { ipv6: true },
    });
    expect(v4only.status).toBe(400);
    expect(fields(v4only)).toEqual(['default_route.ipv6']);
    const asks = await t.post(base, {
      vpc: { subnet_id: v.v4, ipv6: { slaac: [{ range: 'auto' }] } },
    });
    expect(fields(asks)).toEqual(['vpc.ipv6']);
    const r = await t.post(base, {
      default_route: { ipv4: true },
      vpc: {
        subnet_id: v.dual,
        ipv4: { addresses: [{ address: 'auto', primary: true, nat_1_1_address: null }] },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.default_route).toEqual({ ipv4: true, ipv6: true });
    expect(r.body.vpc.ipv6.slaac).toHaveLength(1);
    expect(r.body.vpc.ipv6.is_public).toBe(false);
    const plain = await t.post(base, { vpc: { subnet_id: v.v4 } });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.default_route).toEqual({ ipv4: false, ipv6: false });
    expect(plain.body.vpc.ipv6).toBeNull();
  });

  it('addComputeInterface/updateComputeInterface: vpc.ipv6 asks for SLAAC and routed /64s; an update replaces it, omitted keeps it', async () => {
    const v = await dualStack();
    const inst = await bare();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const r = await t.post(base, {
      vpc: {
        subnet_id: v.dual,
        ipv6: { slaac: [{ range: 'auto' }], ranges: [{ range: '/64' }], is_public: true },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const first = r.body.vpc.ipv6 as V6;
    expect(first.ranges).toHaveLength(1);
    expect(first.is_public).toBe(true);
    expect(first.ranges[0]?.range).not.toBe(first.slaac[0]?.range);
    const bad = await t.put(`${base}/${r.body.id}`, {
      vpc: { ipv6: { ranges: [{ range: '/60' }] } },
    });
    expect(bad.body.errors).toEqual([
      { field: 'vpc.ipv6.ranges.0.range', reason: 'The range must be a /64' },
    ]);
    const kept = await t.put(`${base}/${r.body.id}`, {
      vpc: { ipv4: { addresses: [{ address: 'auto' }] } },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.vpc.ipv6).toEqual(first);
    const replaced = await t.put(`${base}/${r.body.id}`, {
      vpc: { ipv6: { slaac: [{ range: first.slaac[0]?.range }], ranges: [], is_public: false } },
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.vpc.ipv6).toEqual({ slaac: first.slaac, ranges: [], is_public: false });
    // Without IPv6 the interface gives up the IPv6 route and cannot take it.
    await t.put(`${base}/settings`, { default_route: { ipv6_interface_id: r.body.id } });
    const none = await t.put(`${base}/${r.body.id}`, { vpc: { ipv6: { slaac: [] } } });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(none.body.default_route).toEqual({ ipv4: true, ipv6: false });
    expect((await t.get(`${base}/settings`)).body.default_route.ipv6_interface_id).toBeNull();
    const again = await t.put(`${base}/${r.body.id}`, { default_route: { ipv6: true } });
    expect(fields(again)).toEqual(['default_route.ipv6']);
  });

  it('updateComputeInterface: re-sending the interface\u2019s own IPv4 ranges with a new /32 keeps them and adds a free one', async () => {
    const v = await dualStack();
    const inst = await bare();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const r = await t.post(base, {
      vpc: {
        subnet_id: v.dual,
        ipv4: { addresses: [{ address: 'auto', primary: true }], ranges: [{ range: '/32' }] },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const own = r.body.vpc.ipv4.ranges[0].range as string;
    const u = await t.put(`${base}/${r.body.id}`, {
      vpc: {
        subnet_id: v.dual,
        ipv4: {
          addresses: [{ address: 'auto', primary: true }],
          ranges: [{ range: own }, { range: '/32' }],
        },
      },
    });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    const ranges = (u.body.vpc.ipv4.ranges as { range: string }[]).map((x) => x.range);
    expect(ranges[0]).toBe(own);
    expect(ranges[1]).toMatch(/^10\.0\.0\.\d+\/32$/);
    expect(ranges[1]).not.toBe(own);
    expect(ranges[1]).not.toBe(`${u.body.vpc.ipv4.addresses[0].address}/32`);
  });

  it('updateComputeInterface: public ipv6.ranges is the instance\u2019s routed range: /64 or /56 allocates one, an unnamed one is released', async () => {
    const inst = await bare();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const pub = await t.post(base, { public: {} });
    expect(pub.status).toBe(200);
    const old = await t.post('/v4/networking/ipv6/ranges', {
      prefix_length: 64,
      compute_id: inst.id,
    });
    expect(old.status, JSON.stringify(old.body)).toBe(200);
    const kept = await t.put(`${base}/${pub.body.id}`, {
      public: { ipv6: { ranges: [{ range: old.body.range }] } },
    });
    expect(kept.body.public.ipv6.ranges.map((x: { range: string }) => x.range)).toEqual([
      old.body.range,
    ]);
    const two = await t.put(`${base}/${pub.body.id}`, {
      public: { ipv6: { ranges: [{ range: '/64' }, { range: '/64' }] } },
    });
    expect(fields(two)).toEqual(['public.ipv6.ranges']);
    const wrong = await t.put(`${base}/${pub.body.id}`, {
      public: { ipv6: { ranges: [{ range: '/48' }] } },
    });
    expect(fields(wrong)).toEqual(['public.ipv6.ranges.0.range']);
    const u = await t.put(`${base}/${pub.body.id}`, {
      default_route: { ipv4: true, ipv6: true },
      public: { ipv6: { ranges: [{ range: '/64' }] } },
    });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    const ranges = u.body.public.ipv6.ranges as { range: string; route_target: string }[];
    expect(ranges).toHaveLength(1);
    expect(ranges[0]?.range).toMatch(/\/64$/);
    expect(ranges[0]?.route_target).toBe(u.body.public.ipv6.slaac[0].address);
    const all = await t.get('/v4/networking/ipv6/ranges');
    expect(all.body.data.map((x: { range: string }) => `${x.range}/64`)).toEqual([
      ranges[0]?.range,
    ]);
    const cleared = await t.put(`${base}/${pub.body.id}`, { public: { ipv6: { ranges: [] } } });
    expect(cleared.body.public.ipv6.ranges).toEqual([]);
    expect((await t.get('/v4/networking/ipv6/ranges')).body.results).toBe(0);
  });

  it('createComputeInstance: a public interface may ask for a new IPv6 range by its length', async () => {
    const inst = await createInstance(t, {
      interface_generation: 'compute',
      interfaces: [{ public: { ipv6: { ranges: [{ range: '/56' }] } } }],
    });
    const list = (await t.get(`/v4/compute/instances/${inst.id}/interfaces`)).body.interfaces;
    expect(list[0].public.ipv6.ranges).toHaveLength(1);
    expect(list[0].public.ipv6.ranges[0].range).toMatch(/\/56$/);
  });

  it('upgradeComputeInterfaces: the dry run shows the ids and MACs the upgrade gives; the primary dual-stack VPC interface takes both routes and its 1:1 NAT address', async () => {
    const v = await dualStack();
    const r = await t.post('/v4/compute/instances', {
      region: 'us-iad',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted: false,
      interfaces: [
        { purpose: 'public' },
        { purpose: 'vlan', label: 'cool-vlan', ipam_address: '10.0.0.4/32' },
        {
          purpose: 'vpc',
          subnet_id: v.dual,
          primary: true,
          ipv4: { vpc: '10.0.0.2', nat_1_1: 'any' },
          ip_ranges: ['10.0.0.5/32'],
        },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await t.settle();
    // An interface made and deleted elsewhere moves the id counter: the preview follows it.
    const other = await bare();
    const gone = await t.post(`/v4/compute/instances/${other.id}/interfaces`, { public: {} });
    await t.del(`/v4/compute/instances/${other.id}/interfaces/${gone.body.id}`);
    const url = `/v4/compute/instances/${r.body.id}/upgrade-interfaces`;
    const dry = await t.post(url, { dry_run: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    const [pub, vlan, vpc] = dry.body.interfaces as Full[];
    expect(pub?.mac_address).toMatch(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/);
    expect(new Set(dry.body.interfaces.map((i: Full) => i.mac_address)).size).toBe(3);
    expect(dry.body.interfaces.map((i: Full) => i.id)).toEqual([
      gone.body.id + 1,
      gone.body.id + 2,
      gone.body.id + 3,
    ]);
    expect(pub?.default_route).toEqual({ ipv4: false, ipv6: false });
    expect(pub?.public?.ipv4.addresses).toEqual([]);
    expect(vlan?.vlan).toEqual({ vlan_label: 'cool-vlan', ipam_address: '10.0.0.4/32' });
    expect(vpc?.default_route).toEqual({ ipv4: true, ipv6: true });
    expect(vpc?.vpc?.ipv4.addresses).toEqual([
      { address: '10.0.0.2', primary: true, nat_1_1_address: r.body.ipv4[0] },
    ]);
    expect(vpc?.vpc?.ipv4.ranges).toEqual([{ range: '10.0.0.5/32' }]);
    expect(vpc?.vpc?.ipv6?.slaac).toHaveLength(1);
    expect(vpc?.vpc?.ipv6?.is_public).toBe(false);
    const done = await t.post(url, {});
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const strip = (i: Full & { created?: string; updated?: string }) => {
      const { created: _c, updated: _u, ...rest } = i;
      return rest;
    };
    expect(done.body.interfaces.map(strip)).toEqual(dry.body.interfaces.map(strip));
    const list = await t.get(`/v4/compute/instances/${r.body.id}/interfaces`);
    expect(list.body.interfaces.map(strip)).toEqual(dry.body.interfaces.map(strip));
  });

  it('cloneComputeInstance: a dual-stack VPC interface’s clone has as many SLAAC and routed /64s, new ones, and its is_public', async () => {
    const v = await dualStack();
    const src = await createInstance(t, {
      interface_generation: 'compute',
      interfaces: [
        {
          vpc: {
            subnet_id: v.dual,
            ipv6: { slaac: [{ range: 'auto' }], ranges: [{ range: '/64' }], is_public: true },
          },
        },
      ],
    });
    const r = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: 'us-iad',
      type: 'g6-nanode-1',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await t.settle();
    const of = async (id: number) =>
      ((await t.get(`/v4/compute/instances/${id}/interfaces`)).body.interfaces as Full[])[0]?.vpc
        ?.ipv6 as V6;
    const mine = await of(src.id);
    const theirs = await of(r.body.id);
    expect(theirs.slaac).toHaveLength(1);
    expect(theirs.ranges).toHaveLength(1);
    expect(theirs.is_public).toBe(true);
    const blocks = (x: V6) => [...x.slaac.map((s) => s.range), ...x.ranges.map((s) => s.range)];
    for (const b of blocks(theirs)) expect(blocks(mine)).not.toContain(b);
  });
});
