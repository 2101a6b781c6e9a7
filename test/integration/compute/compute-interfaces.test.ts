import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { type Iface, STRONG } from './interfaces.fixtures.js';

describe('interfaces of the compute generation', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const vpc = async (region = 'us-iad', ipv4 = '10.0.0.0/24') => {
    const r = await t.post('/v4/vpcs', {
      label: `vpc-${Math.floor(Math.random() * 1e6)}`,
      region,
      subnets: [{ label: 'sub', ipv4 }],
    });
    expect(r.status).toBe(200);
    return { vpcId: r.body.id as number, subnetId: r.body.subnets[0].id as number };
  };
  const firewall = async () => {
    const r = await t.post('/v4/networking/firewalls', {
      label: `fw-${Math.floor(Math.random() * 1e6)}`,
      rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
    });
    expect(r.status).toBe(200);
    return r.body.id as number;
  };
  const create = (body: Record<string, unknown>) =>
    t.post('/v4/compute/instances', {
      region: 'us-iad',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted: false,
      ...body,
    });
  const bare = async () => {
    const r = await create({ interface_generation: 'compute' });
    expect(r.status).toBe(200);
    await t.settle();
    return r.body as { id: number; ipv4: string[] };
  };
  const fields = (r: { body: { errors?: { field?: string }[] } }) =>
    (r.body.errors ?? []).map((e) => e.field);

  it('getRegions: every core region that serves instances offers the new interfaces, as the recorded catalogue has it', async () => {
    const regions = (await t.get('/v4/regions')).body.data as {
      id: string;
      site_type: string;
      capabilities: string[];
    }[];
    const serving = regions.filter((r) => r.capabilities.includes('Computes'));
    expect(serving.length).toBeGreaterThan(0);
    for (const r of serving) {
      expect(r.capabilities.includes('Compute Interfaces'), r.id).toBe(r.site_type === 'core');
    }
    // The SDKs pick a region for dual-stack VPCs with the new interfaces by these three.
    expect(
      serving.some((r) =>
        ['VPCs', 'VPC IPv6 Stack', 'Compute Interfaces'].every((c) => r.capabilities.includes(c)),
      ),
    ).toBe(true);
  });

  it('createComputeInstance: interface_generation compute with public, VPC and VLAN interfaces', async () => {
    const { vpcId, subnetId } = await vpc();
    const fw = await firewall();
    const r = await create({
      interface_generation: 'compute',
      interfaces: [
        { firewall_id: fw, default_route: { ipv4: true, ipv6: true }, public: {} },
        { firewall_id: fw, vpc: { subnet_id: subnetId } },
        { vlan: { vlan_label: 'test-vlan', ipam_address: '10.0.0.5/32' } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.interface_generation).toBe('compute');
    await t.settle();
    const list = await t.get(`/v4/compute/instances/${r.body.id}/interfaces`);
    expect(list.status).toBe(200);
    const [pub, v, vl] = list.body.interfaces as Iface[];
    expect(pub?.public?.ipv4.addresses).toEqual([{ address: r.body.ipv4[0], primary: true }]);
    expect(pub?.default_route).toEqual({ ipv4: true, ipv6: true });
    expect(pub?.vpc).toBeNull();
    expect(v?.vpc).toMatchObject({ vpc_id: vpcId, subnet_id: subnetId });
    expect(v?.vpc?.ipv4.addresses[0]?.address).toBe('10.0.0.2');
    expect(v?.vpc?.ipv4.addresses[0]?.nat_1_1_address).toBeNull();
    expect(v?.default_route).toEqual({ ipv4: false, ipv6: false });
    expect(vl?.vlan).toEqual({ vlan_label: 'test-vlan', ipam_address: '10.0.0.5/32' });
    expect(vl?.default_route).toEqual({ ipv4: false, ipv6: false });
    // Profiles of such an instance have no interfaces.
    const configs = await t.get(`/v4/compute/instances/${r.body.id}/configs`);
    expect(configs.body.data[0].interfaces).toEqual([]);
    expect((await t.get(`/v4/compute/instances/${r.body.id}/interfaces/${pub?.id}`)).body).toEqual(
      pub,
    );
  });

  it('createComputeInstance: the account setting interfaces_for_new_computes decides the default and what is allowed', async () => {
    expect((await t.get('/v4/account/settings')).body.interfaces_for_new_computes).toBe(
      'legacy_config_default_but_compute_allowed',
    );
    const legacy = await create({});
    expect(legacy.body.interface_generation).toBe('legacy_config');
    const put = await t.put('/v4/account/settings', {
      interfaces_for_new_computes: 'compute_default_but_legacy_config_allowed',
    });
    expect(put.body.interfaces_for_new_computes).toBe('compute_default_but_legacy_config_allowed');
    expect((await create({})).body.interface_generation).toBe('compute');
    await t.put('/v4/account/settings', { interfaces_for_new_computes: 'legacy_config_only' });
    const refused = await create({ interface_generation: 'compute' });
    expect(refused.status).toBe(400);
    expect(fields(refused)).toEqual(['interface_generation']);
    await t.put('/v4/account/settings', { interfaces_for_new_computes: 'compute_only' });
    expect(fields(await create({ interface_generation: 'legacy_config' }))).toEqual([
      'interface_generation',
    ]);
    const bad = await t.put('/v4/account/settings', { interfaces_for_new_computes: 'sometimes' });
    expect(bad.status).toBe(400);
  });

  it('createComputeInstance: each generation takes only its own interface shape', async () => {
    const legacyWithNew = await create({ interfaces: [{ public: {} }] });
    expect(legacyWithNew.status).toBe(400);
    expect(fields(legacyWithNew)).toEqual(['interfaces.0.public']);
    const newWithPurpose = await create({
      interface_generation: 'compute',
      interfaces: [{ purpose: 'public' }],
    });
    expect(fields(newWithPurpose)).toEqual(['interfaces.0.purpose']);
    const fw = await firewall();
    const topFirewall = await create({ interface_generation: 'compute', firewall_id: fw });
    expect(fields(topFirewall)).toEqual(['firewall_id']);
    const none = await create({ interface_generation: 'compute', interfaces: [{}] });
    expect(fields(none)).toEqual(['interfaces.0.public']);
    const two = await create({
      interface_generation: 'compute',
      interfaces: [{ public: {} }, { public: {} }],
    });
    expect(two.status).toBe(400);
    expect(fields(two)).toEqual(['interfaces.1.public']);
    // Nothing was written by the refused creates.
    expect((await t.get('/v4/compute/instances')).body.results).toBe(0);
  });

  it('addComputeInterface: the first interface able to carry a family takes its default route unless told not to', async () => {
    const inst = await bare();
    const { subnetId } = await vpc();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const vl = await t.post(base, { vlan: { vlan_label: 'v1' } });
    expect(vl.body.default_route).toEqual({ ipv4: false, ipv6: false });
    const v = await t.post(base, { vpc: { subnet_id: subnetId }, default_route: { ipv4: false } });
    expect(v.body.default_route).toEqual({ ipv4: false, ipv6: false });
    const pub = await t.post(base, { public: {} });
    expect(pub.body.default_route).toEqual({ ipv4: true, ipv6: true });
    const s = await t.get(`${base}/settings`);
    expect(s.body.default_route.ipv4_interface_id).toBe(pub.body.id);
  });

  it('createComputeInstance: one default route per IP family; a VLAN interface is never one', async () => {
    const { subnetId } = await vpc();
    const twice = await create({
      interface_generation: 'compute',
      interfaces: [
        { public: {}, default_route: { ipv4: true } },
        { vpc: { subnet_id: subnetId }, default_route: { ipv4: true } },
      ],
    });
    expect(fields(twice)).toEqual(['interfaces.1.default_route.ipv4']);
    const vlan = await create({
      interface_generation: 'compute',
      interfaces: [{ vlan: { vlan_label: 'v1' }, default_route: { ipv4: true } }],
    });
    expect(fields(vlan)).toEqual(['interfaces.0.default_route']);
  });

  it('createComputeInstance: a VPC interface needs a subnet of the account in the instance region', async () => {
    const other = await vpc('eu-central', '10.1.0.0/24');
    const r = await create({
      interface_generation: 'compute',
      interfaces: [{ vpc: { subnet_id: other.subnetId } }],
    });
    expect(r.status).toBe(400);
    expect(fields(r)).toEqual(['interfaces.0.vpc.subnet_id']);
    const missing = await create({
      interface_generation: 'compute',
      interfaces: [{ vpc: { subnet_id: 999999 } }],
    });
    expect(fields(missing)).toEqual(['interfaces.0.vpc.subnet_id']);
    expect((await t.get('/v4/compute/instances')).body.results).toBe(0);
  });

  it('addComputeInterface: public with the instance address, VPC with auto address and a /32 range, VLAN; events', async () => {
    const inst = await bare();
    const { subnetId } = await vpc();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    expect((await t.get(base)).body).toEqual({ interfaces: [] });
    const pub = await t.post(base, {
      default_route: { ipv4: true, ipv6: true },
      public: { ipv4: { addresses: [{ address: inst.ipv4[0], primary: true }] } },
    });
    expect(pub.status).toBe(200);
    expect(pub.body.public.ipv4.addresses).toEqual([{ address: inst.ipv4[0], primary: true }]);
    expect(pub.body.mac_address).toMatch(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/);
    expect(pub.body.version).toBe(1);
    const v = await t.post(base, {
      vpc: {
        subnet_id: subnetId,
        ipv4: {
          addresses: [{ address: 'auto', primary: true, nat_1_1_address: 'auto' }],
          ranges: [{ range: '/32' }],
        },
      },
    });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    // The 1:1 NAT `auto` gets a public IPv4 of its own (the public interface keeps its address),
    // as the real service gives a second address to such an instance.
    const ips = (await t.get(`/v4/compute/instances/${inst.id}/ips`)).body.ipv4.public as {
      address: string;
    }[];
    expect(ips.map((i) => i.address)).toHaveLength(2);
    const natted = ips[1]?.address;
    expect(natted).not.toBe(inst.ipv4[0]);
    expect(v.body.vpc.ipv4.addresses).toEqual([
      { address: '10.0.0.2', primary: true, nat_1_1_address: natted },
    ]);
    expect(v.body.vpc.ipv4.ranges).toEqual([{ range: '10.0.0.3/32' }]);
    expect((await t.get(`${base}/${pub.body.id}`)).body.public.ipv4.addresses).toEqual([
      { address: inst.ipv4[0], primary: true },
    ]);
    const vl = await t.post(base, { vlan: { vlan_label: 'v1', ipam_address: '10.9.0.1/24' } });
    expect(vl.status).toBe(200);
    const fourth = await t.post(base, { vlan: { vlan_label: 'v2' } });
    expect(fourth.status).toBe(400);
    const events = await t.get('/v4/account/events', {
      filter: { 'entity.id': inst.id, action: 'interface_create' },
    });
    expect(events.body.results).toBe(3);
    expect(events.body.data[0].entity.type).toBe('compute');
  });

  it('addComputeInterface: an address of another instance is refused; the same VLAN twice is refused', async () => {
    const a = await bare();
    const b = await bare();
    const r = await t.post(`/v4/compute/instances/${a.id}/interfaces`, {
      public: { ipv4: { addresses: [{ address: b.ipv4[0] }] } },
    });
    expect(r.status).toBe(400);
    expect(fields(r)).toEqual(['public.ipv4.addresses.0.address']);
    await t.post(`/v4/compute/instances/${a.id}/interfaces`, { vlan: { vlan_label: 'v1' } });
    const again = await t.post(`/v4/compute/instances/${a.id}/interfaces`, {
      vlan: { vlan_label: 'v1' },
    });
    expect(fields(again)).toEqual(['vlan.vlan_label']);
  });

  it('addComputeInterface: two interfaces never share a VPC address', async () => {
    const { subnetId } = await vpc();
    const a = await bare();
    const b = await bare();
    const first = await t.post(`/v4/compute/instances/${a.id}/interfaces`, {
      vpc: { subnet_id: subnetId, ipv4: { addresses: [{ address: '10.0.0.7' }] } },
    });
    expect(first.status).toBe(200);
    const clash = await t.post(`/v4/compute/instances/${b.id}/interfaces`, {
      vpc: { subnet_id: subnetId, ipv4: { addresses: [{ address: '10.0.0.7' }] } },
    });
    expect(clash.status).toBe(400);
    expect(fields(clash)).toEqual(['vpc.ipv4.addresses.0.address']);
    // A legacy profile interface cannot take it either.
    const legacy = await create({
      interfaces: [{ purpose: 'vpc', subnet_id: subnetId, ipv4: { vpc: '10.0.0.7' } }],
    });
    expect(legacy.status).toBe(400);
  });

  it('getComputeInterfaces: an instance of the legacy generation has none here (400)', async () => {
    const r = await create({});
    await t.settle();
    const list = await t.get(`/v4/compute/instances/${r.body.id}/interfaces`);
    expect(list.status).toBe(400);
    expect(list.body.errors[0].reason).toMatch(/legacy_config/);
  });

  it('updateComputeInterface: default route moves, a public interface gains an auto address, version grows', async () => {
    const inst = await bare();
    const { subnetId } = await vpc();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const pub = (await t.post(base, { default_route: { ipv4: true }, public: {} })).body as Iface;
    const v = (await t.post(base, { vpc: { subnet_id: subnetId } })).body as Iface;
    const moved = await t.put(`${base}/${v.id}`, { default_route: { ipv4: true } });
    expect(moved.status).toBe(200);
    expect(moved.body.default_route).toEqual({ ipv4: true, ipv6: false });
    expect(moved.body.version).toBe(2);
    expect((await t.get(`${base}/${pub.id}`)).body.default_route.ipv4).toBe(false);
    const grown = await t.put(`${base}/${pub.id}`, {
      public: {
        ipv4: {
          addresses: [
            { address: inst.ipv4[0], primary: false },
            { address: 'auto', primary: true },
          ],
        },
      },
    });
    expect(grown.status).toBe(200);
    const addrs = grown.body.public.ipv4.addresses as { address: string; primary: boolean }[];
    expect(addrs).toHaveLength(2);
    expect(addrs[0]).toEqual({ address: inst.ipv4[0], primary: false });
    expect(addrs[1]?.primary).toBe(true);
    const ips = await t.get(`/v4/compute/instances/${inst.id}/ips`);
    expect(ips.body.ipv4.public).toHaveLength(2);
    const sub = await t.put(`${base}/${v.id}`, { vpc: { subnet_id: 0 } });
    expect(sub.status).toBe(400);
    const ranged = await t.put(`${base}/${v.id}`, {
      vpc: { ipv4: { addresses: [{ address: 'auto' }], ranges: [{ range: '/30' }] } },
    });
    expect(ranged.status).toBe(200);
    expect(ranged.body.vpc.ipv4.ranges).toEqual([{ range: '10.0.0.4/30' }]);
  });

  it('getComputeInterfaceSettings/updateComputeInterfaceSettings: default route ids and the eligible ones', async () => {
    const inst = await bare();
    const { subnetId } = await vpc();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const pub = (await t.post(base, { default_route: { ipv4: true, ipv6: true }, public: {} }))
      .body as Iface;
    const v = (await t.post(base, { vpc: { subnet_id: subnetId } })).body as Iface;
    const vl = (await t.post(base, { vlan: { vlan_label: 'v1' } })).body as Iface;
    const s = await t.get(`${base}/settings`);
    expect(s.body).toEqual({
      network_helper: false,
      default_route: {
        ipv4_interface_id: pub.id,
        ipv4_eligible_interface_ids: [pub.id, v.id],
        ipv6_interface_id: pub.id,
        ipv6_eligible_interface_ids: [pub.id],
      },
    });
    const bad = await t.put(`${base}/settings`, { default_route: { ipv4_interface_id: vl.id } });
    expect(fields(bad)).toEqual(['default_route.ipv4_interface_id']);
    const ok = await t.put(`${base}/settings`, {
      network_helper: true,
      default_route: { ipv4_interface_id: v.id, ipv6_interface_id: null },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.network_helper).toBe(true);
    expect(ok.body.default_route.ipv4_interface_id).toBe(v.id);
    expect(ok.body.default_route.ipv6_interface_id).toBe(pub.id);
  });

  it('deleteComputeInterface: the interface and its firewall device go; the address is free again', async () => {
    const inst = await bare();
    const fw = await firewall();
    const { subnetId } = await vpc();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const v = (
      await t.post(base, {
        firewall_id: fw,
        vpc: { subnet_id: subnetId, ipv4: { addresses: [{ address: '10.0.0.9' }] } },
      })
    ).body as Iface;
    const fwView = await t.get(`/v4/networking/firewalls/${fw}`);
    expect(fwView.body.entities).toEqual([
      {
        id: v.id,
        type: 'compute_interface',
        label: null,
        url: `/v4/compute/instances/${inst.id}/interfaces/${v.id}`,
        parent_entity: {
          id: inst.id,
          type: 'compute',
          label: expect.any(String),
          url: `/v4/compute/instances/${inst.id}`,
          parent_entity: null,
        },
      },
    ]);
    const fws = await t.get(`${base}/${v.id}/firewalls`);
    expect(fws.body.data.map((f: { id: number }) => f.id)).toEqual([fw]);
    expect((await t.del(`${base}/${v.id}`)).status).toBe(200);
    expect((await t.get(`${base}/${v.id}`)).status).toBe(404);
    expect((await t.get(`/v4/networking/firewalls/${fw}`)).body.entities).toEqual([]);
    const other = await bare();
    const again = await t.post(`/v4/compute/instances/${other.id}/interfaces`, {
      vpc: { subnet_id: subnetId, ipv4: { addresses: [{ address: '10.0.0.9' }] } },
    });
    expect(again.status).toBe(200);
    const events = await t.get('/v4/account/events', {
      filter: { 'entity.id': inst.id, action: 'interface_delete' },
    });
    expect(events.body.results).toBe(1);
  });

  it('addComputeInterface: a restricted user needs read_write on the instance', async () => {
    const inst = await bare();
    const ro = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    expect((await t.get(base, { token: ro.token })).status).toBe(200);
    expect((await t.post(base, { public: {} }, { token: ro.token })).status).toBe(403);
    const none = await createTestUser(t, {});
    expect((await t.get(base, { token: none.token })).status).toBe(404);
    const rw = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_write' }],
    });
    expect((await t.post(base, { public: {} }, { token: rw.token })).status).toBe(200);
  });

  it('getVpcIps: an instance\u2019s own VPC interface lists its address and ranges, config_id null; the subnet shows the instance', async () => {
    const { vpcId, subnetId } = await vpc();
    const inst = await bare();
    const v = await t.post(`/v4/compute/instances/${inst.id}/interfaces`, {
      vpc: {
        subnet_id: subnetId,
        ipv4: {
          addresses: [{ address: '10.0.0.20', nat_1_1_address: 'auto' }],
          ranges: [{ range: '10.0.0.32/28' }],
        },
      },
    });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    const ips = await t.get(`/v4/vpcs/${vpcId}/ips`);
    expect(ips.status).toBe(200);
    expect(
      ips.body.data.map((r: Record<string, unknown>) => [
        r.address,
        r.address_range,
        r.config_id,
        r.interface_id,
        r.nat_1_1,
      ]),
    ).toEqual([
      ['10.0.0.20', null, null, v.body.id, inst.ipv4[0]],
      [null, '10.0.0.32/28', null, v.body.id, null],
    ]);
    const sub = await t.get(`/v4/vpcs/${vpcId}/subnets/${subnetId}`);
    expect(sub.body.computes).toEqual([
      { id: inst.id, interfaces: [{ id: v.body.id, active: false, config_id: null }] },
    ]);
    // In use: the subnet cannot be deleted.
    expect((await t.del(`/v4/vpcs/${vpcId}/subnets/${subnetId}`)).status).toBe(400);
    const own = await t.get(`/v4/compute/instances/${inst.id}/ips`);
    expect(own.body.ipv4.vpc.map((r: { address: string | null }) => r.address)).toEqual([
      '10.0.0.20',
      null,
    ]);
    expect(own.body.ipv4.public[0].vpc_nat_1_1).toEqual({
      vpc_id: vpcId,
      subnet_id: subnetId,
      address: '10.0.0.20',
    });
  });

  it('getComputeIps: interface_id names the public interface on the public IPv4 addresses', async () => {
    const inst = await bare();
    const before = await t.get(`/v4/compute/instances/${inst.id}/ips`);
    expect(before.body.ipv4.public[0].interface_id).toBeNull();
    const pub = await t.post(`/v4/compute/instances/${inst.id}/interfaces`, { public: {} });
    const after = await t.get(`/v4/compute/instances/${inst.id}/ips`);
    expect(after.body.ipv4.public[0].interface_id).toBe(pub.body.id);
    expect(pub.body.public.ipv6.slaac).toEqual([
      { address: after.body.ipv6.slaac.address, prefix: 64 },
    ]);
  });

  it('createComputeConfig: a profile of an instance of the compute generation takes no interfaces', async () => {
    const inst = await bare();
    const configs = await t.get(`/v4/compute/instances/${inst.id}/configs`);
    const cfg = configs.body.data[0].id as number;
    const put = await t.put(`/v4/compute/instances/${inst.id}/configs/${cfg}`, {
      interfaces: [{ purpose: 'public' }],
    });
    expect(put.status).toBe(400);
    expect(fields(put)).toEqual(['interfaces']);
    const add = await t.post(`/v4/compute/instances/${inst.id}/configs/${cfg}/interfaces`, {
      purpose: 'public',
    });
    expect(add.status).toBe(400);
    // An empty list is fine (SDKs send it).
    expect(
      (await t.put(`/v4/compute/instances/${inst.id}/configs/${cfg}`, { interfaces: [] })).status,
    ).toBe(200);
  });

  it('upgradeComputeInterfaces: dry_run shows, the upgrade converts profile interfaces and moves the firewall', async () => {
    const { subnetId } = await vpc();
    const fw = await firewall();
    const r = await create({
      firewall_id: fw,
      interfaces: [
        { purpose: 'public', primary: true },
        { purpose: 'vpc', subnet_id: subnetId, ipv4: { vpc: '10.0.0.30' } },
        { purpose: 'vlan', label: 'v1', ipam_address: '10.9.0.1/24' },
      ],
    });
    expect(r.status).toBe(200);
    await t.settle();
    const url = `/v4/compute/instances/${r.body.id}/upgrade-interfaces`;
    const dry = await t.post(url, { dry_run: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(
      dry.body.interfaces.map((i: Iface) => [
        i.public !== null,
        i.vpc?.ipv4.addresses[0]?.address ?? null,
        i.vlan?.vlan_label ?? null,
      ]),
    ).toEqual([
      [true, null, null],
      [false, '10.0.0.30', null],
      [false, null, 'v1'],
    ]);
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.interface_generation).toBe(
      'legacy_config',
    );
    const done = await t.post(url, {});
    expect(done.status).toBe(200);
    expect(done.body.dry_run).toBe(false);
    expect(done.body.interfaces[0].default_route).toEqual({ ipv4: true, ipv6: true });
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.interface_generation).toBe(
      'compute',
    );
    const list = await t.get(`/v4/compute/instances/${r.body.id}/interfaces`);
    expect(list.body.interfaces).toHaveLength(3);
    const configs = await t.get(`/v4/compute/instances/${r.body.id}/configs`);
    expect(configs.body.data[0].interfaces).toEqual([]);
    const entities = (await t.get(`/v4/networking/firewalls/${fw}`)).body.entities as {
      type: string;
    }[];
    expect(entities.map((e) => e.type)).toEqual(['compute_interface', 'compute_interface']);
    expect((await t.post(url, {})).status).toBe(400);
  });

  it('createFirewallDevice: type compute_interface attaches a public or VPC interface, never a VLAN one', async () => {
    const inst = await bare();
    const fw = await firewall();
    const pub = await t.post(`/v4/compute/instances/${inst.id}/interfaces`, { public: {} });
    const vl = await t.post(`/v4/compute/instances/${inst.id}/interfaces`, {
      vlan: { vlan_label: 'v1' },
    });
    const dev = await t.post(`/v4/networking/firewalls/${fw}/devices`, {
      id: pub.body.id,
      type: 'compute_interface',
    });
    expect(dev.status, JSON.stringify(dev.body)).toBe(200);
    expect(dev.body.entity).toMatchObject({
      id: pub.body.id,
      type: 'compute_interface',
      label: null,
      parent_entity: { id: inst.id, type: 'compute' },
    });
    const vlan = await t.post(`/v4/networking/firewalls/${fw}/devices`, {
      id: vl.body.id,
      type: 'compute_interface',
    });
    expect(vlan.status).toBe(400);
    const missing = await t.post(`/v4/networking/firewalls/${fw}/devices`, {
      id: 99999,
      type: 'compute_interface',
    });
    expect(missing.status).toBe(400);
  });

  it('deleteComputeInstance: its interfaces and their firewall devices go with it', async () => {
    const fw = await firewall();
    const r = await create({
      interface_generation: 'compute',
      interfaces: [{ firewall_id: fw, public: {} }],
    });
    await t.settle();
    expect((await t.get(`/v4/networking/firewalls/${fw}`)).body.entities).toHaveLength(1);
    expect((await t.del(`/v4/compute/instances/${r.body.id}`)).status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/networking/firewalls/${fw}`)).body.entities).toEqual([]);
    const left = await t.ctx.db.db.selectFrom('compute_interfaces').select('id').execute();
    expect(left).toEqual([]);
  });

  it('deleteComputeInterface: refused while the instance has a cannot_delete_with_subresources lock', async () => {
    const inst = await bare();
    const base = `/v4/compute/instances/${inst.id}/interfaces`;
    const pub = await t.post(base, { public: {} });
    const lock = await t.post('/v4/locks', {
      entity_type: 'compute',
      entity_id: inst.id,
      lock_type: 'cannot_delete_with_subresources',
    });
    expect(lock.status).toBe(200);
    expect((await t.del(`${base}/${pub.body.id}`)).status).toBe(400);
    expect((await t.get(`${base}/${pub.body.id}`)).status).toBe(200);
  });
});
