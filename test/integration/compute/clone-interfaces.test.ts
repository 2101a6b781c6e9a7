import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createInstance, type Iface } from './interfaces.fixtures.js';

/** Clones of instances of the new interface generation: the copy gets interfaces of its own. */
describe('clone of a new-generation instance', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const create = (body: Record<string, unknown>) => createInstance(t, body);
  const ifaces = async (id: number) =>
    (await t.get(`/v4/compute/instances/${id}/interfaces`)).body.interfaces as Iface[];
  const firewallsOf = async (computeId: number, ifaceId: number) =>
    (
      (await t.get(`/v4/compute/instances/${computeId}/interfaces/${ifaceId}/firewalls`)).body
        .data as { id: number }[]
    ).map((f) => f.id);

  const source = async () => {
    const vpc = await t.post('/v4/vpcs', {
      label: 'clone-vpc',
      region: 'us-iad',
      subnets: [{ label: 'sub', ipv4: '10.0.0.0/24' }],
    });
    expect(vpc.status).toBe(200);
    const subnetId = vpc.body.subnets[0].id as number;
    const fw = await t.post('/v4/networking/firewalls', {
      label: 'clone-fw',
      rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
    });
    expect(fw.status).toBe(200);
    const src = await create({
      interface_generation: 'compute',
      interfaces: [
        { firewall_id: fw.body.id, default_route: { ipv4: true, ipv6: true }, public: {} },
        {
          firewall_id: null,
          vpc: {
            subnet_id: subnetId,
            ipv4: { addresses: [{ address: 'auto', primary: true, nat_1_1_address: 'auto' }] },
          },
        },
        { vlan: { vlan_label: 'clone-vlan', ipam_address: '10.0.0.5/24' } },
      ],
    });
    return { src, subnetId, firewallId: fw.body.id as number, vpcId: vpc.body.id as number };
  };

  it('cloneCompute: the clone keeps the generation and gets its own public, VPC and VLAN interfaces', async () => {
    const { src, subnetId, firewallId } = await source();
    const r = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: 'us-iad',
      type: 'g6-nanode-1',
    });
    expect(r.status).toBe(200);
    expect(r.body.interface_generation).toBe('compute');
    await t.settle();
    const mine = await ifaces(src.id);
    const theirs = await ifaces(r.body.id);
    expect(theirs.map((i) => (i.public ? 'public' : i.vpc ? 'vpc' : 'vlan'))).toEqual([
      'public',
      'vpc',
      'vlan',
    ]);
    const [pub, vpc, vlan] = theirs as [Iface, Iface, Iface];
    // Public: the clone's own new address, not the source's; its VPC interface's 1:1 NAT `auto`
    // has a second one (an address is on one interface).
    const clonePublic = pub.public?.ipv4.addresses.map((a) => a.address) ?? [];
    const cloneIps = (await t.get(`/v4/compute/instances/${r.body.id}`)).body.ipv4 as string[];
    expect(cloneIps).toHaveLength(2);
    expect(clonePublic).toEqual([cloneIps[0]]);
    expect(clonePublic).not.toContain(src.ipv4[0]);
    expect(pub.default_route).toEqual({ ipv4: true, ipv6: true });
    expect(await firewallsOf(r.body.id, pub.id)).toEqual([firewallId]);
    // VPC: the same subnet, a new address, the 1:1 NAT on the clone's public address.
    expect(vpc.vpc?.subnet_id).toBe(subnetId);
    const srcVpcAddress = mine[1]?.vpc?.ipv4.addresses[0]?.address;
    expect(vpc.vpc?.ipv4.addresses[0]?.address).toMatch(/^10\.0\.0\./);
    expect(vpc.vpc?.ipv4.addresses[0]?.address).not.toBe(srcVpcAddress);
    expect(vpc.vpc?.ipv4.addresses[0]?.nat_1_1_address).toBe(cloneIps[1]);
    expect(await firewallsOf(r.body.id, vpc.id)).toEqual([]);
    // VLAN: the same label, no IPAM address (the source's is taken on that VLAN).
    expect(vlan.vlan).toEqual({ vlan_label: 'clone-vlan', ipam_address: null });
    // The configs of a new-generation instance carry no profile interfaces.
    const configs = (await t.get(`/v4/compute/instances/${r.body.id}/configs`)).body.data;
    for (const c of configs) expect(c.interfaces).toEqual([]);
  });

  it('cloneCompute: a new-generation source with a VPC interface cannot be cloned to another region', async () => {
    const { src } = await source();
    const before = (await t.get('/v4/compute/instances')).body.results;
    const r = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: 'eu-central',
      type: 'g6-nanode-1',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      {
        field: 'region',
        reason:
          'A compute instance with a VPC interface can only be cloned within the region of its VPC',
      },
    ]);
    expect((await t.get('/v4/compute/instances')).body.results).toBe(before);
  });

  it('cloneCompute: a new-generation source with a public interface only clones to another region', async () => {
    const src = await create({ interface_generation: 'compute', interfaces: [{ public: {} }] });
    const r = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: 'eu-central',
      type: 'g6-nanode-1',
    });
    expect(r.status).toBe(200);
    await t.settle();
    const theirs = await ifaces(r.body.id);
    expect(theirs).toHaveLength(1);
    expect(theirs[0]?.public?.ipv4.addresses[0]?.address).toBe(r.body.ipv4[0]);
  });

  it('cloneCompute: a legacy source stays legacy; onto a new-generation target its configs lose their profile interfaces', async () => {
    const legacy = await create({
      interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: 'legacy-vlan' }],
    });
    const plain = await t.post(`/v4/compute/instances/${legacy.id}/clone`, {
      region: 'us-iad',
      type: 'g6-nanode-1',
    });
    expect(plain.status).toBe(200);
    expect(plain.body.interface_generation).toBe('legacy_config');
    await t.settle();
    const copied = (await t.get(`/v4/compute/instances/${plain.body.id}/configs`)).body.data;
    expect(copied[0].interfaces.map((i: { purpose: string }) => i.purpose)).toEqual([
      'public',
      'vlan',
    ]);

    // A target without disks of its own: room for the copy.
    const made = await t.post('/v4/compute/instances', {
      region: 'us-iad',
      type: 'g6-standard-2',
      interface_generation: 'compute',
      interfaces: [{ public: {} }],
    });
    expect(made.status).toBe(200);
    await t.settle();
    const target = made.body as { id: number };
    const onto = await t.post(`/v4/compute/instances/${legacy.id}/clone`, {
      compute_id: target.id,
    });
    expect(onto.body.errors).toBeUndefined();
    expect(onto.status).toBe(200);
    await t.settle();
    const configs = (await t.get(`/v4/compute/instances/${target.id}/configs`)).body.data;
    expect(configs.length).toBeGreaterThan(0);
    for (const c of configs) expect(c.interfaces).toEqual([]);
    expect(await ifaces(target.id)).toHaveLength(1);
  });
});
