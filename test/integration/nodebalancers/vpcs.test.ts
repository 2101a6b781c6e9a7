import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instanceWith, REGION, vpc } from '../vpcs/fixtures.js';

const fieldsOf = (r: { body: { errors?: { field?: string }[] } }) =>
  (r.body.errors ?? []).map((e) => e.field);

/** NodeBalancers in VPCs: VPC configurations, nodes by VPC address, and the subnets' side. */
describe('nodebalancer vpcs', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const nb = (body: Record<string, unknown>) =>
    t.post('/v4/nodebalancers', { region: REGION, ...body });
  const counts = async () => ({
    nbs: (await t.ctx.db.db.selectFrom('nodebalancers').select('id').execute()).length,
    vpcs: (await t.ctx.db.db.selectFrom('nodebalancer_vpcs').select('id').execute()).length,
  });

  it('createNodeBalancer: vpcs with ipv4_range; listed and viewed under /vpcs; the subnet lists the NodeBalancer', async () => {
    const v = await vpc(t, [['s1', '192.168.0.0/25']]);
    const subnet = v.subnets[0]?.id as number;
    const r = await nb({
      label: 'front',
      vpcs: [{ ipv4_range: '192.168.0.64/30', subnet_id: subnet }],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ type: 'common', frontend_address_type: 'public' });
    const list = await t.get(`/v4/nodebalancers/${r.body.id}/vpcs`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1 });
    const [cfg] = list.body.data;
    expect(cfg).toEqual({
      id: expect.any(Number),
      nodebalancer_id: r.body.id,
      vpc_id: v.id,
      subnet_id: subnet,
      ipv4_range: '192.168.0.64/30',
      ipv6_range: null,
    });
    expect((await t.get(`/v4/nodebalancers/${r.body.id}/vpcs/${cfg.id}`)).body).toEqual(cfg);
    expect((await t.get(`/v4/nodebalancers/${r.body.id}/vpcs/${cfg.id + 1}`)).status).toBe(404);
    const sub = await t.get(`/v4/vpcs/${v.id}/subnets/${subnet}`);
    expect(sub.body.nodebalancers).toEqual([
      { id: r.body.id, ipv4_range: '192.168.0.64/30', ipv6_ranges: [] },
    ]);
    const whole = await t.get(`/v4/vpcs/${v.id}`);
    expect(whole.body.subnets[0].nodebalancers).toEqual(sub.body.nodebalancers);
    // A NodeBalancer without VPC: an empty list; the area no longer answers 501.
    const plain = await nb({});
    expect((await t.get(`/v4/nodebalancers/${plain.body.id}/vpcs`)).body.data).toEqual([]);
  });

  it('createNodeBalancer: without ipv4_range the lowest free aligned /30 is chosen, past the instances; instances then skip it', async () => {
    const v = await vpc(t, [['s1', '10.0.0.0/24']]);
    const subnet = v.subnets[0]?.id as number;
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnet }]); // takes 10.0.0.2
    const a = await nb({ vpcs: [{ subnet_id: subnet }] });
    expect(a.status, a.text).toBe(200);
    const b = await nb({ vpcs: [{ subnet_id: subnet, ipv4_range_auto_assign: true }] });
    expect(b.status, b.text).toBe(200);
    const ranges = async (id: number) =>
      (await t.get(`/v4/nodebalancers/${id}/vpcs`)).body.data.map(
        (c: { ipv4_range: string }) => c.ipv4_range,
      );
    expect(await ranges(a.body.id)).toEqual(['10.0.0.4/30']);
    expect(await ranges(b.body.id)).toEqual(['10.0.0.8/30']);
    // An instance's chosen address skips the NodeBalancers' ranges; a given one inside is refused.
    const next = await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnet }]);
    const vpcAddress = async (url: string) =>
      ((await t.get(url)).body as { ipv4: { vpc: string } }[])[0]?.ipv4.vpc;
    expect(await vpcAddress(next.url)).toBe('10.0.0.3');
    const after = await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnet }]);
    expect(await vpcAddress(after.url)).toBe('10.0.0.12');
    const inside = await t.post('/v4/compute/instances', {
      region: REGION,
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: 's3cr3t-P4ssw0rd!',
      booted: false,
      interfaces: [{ purpose: 'vpc', subnet_id: subnet, ipv4: { vpc: '10.0.0.5' } }],
    });
    expect(inside.status).toBe(400);
    expect(fieldsOf(inside)).toEqual(['interfaces.0.ipv4.vpc']);
    const ranged = await t.post('/v4/compute/instances', {
      region: REGION,
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: 's3cr3t-P4ssw0rd!',
      booted: false,
      interfaces: [{ purpose: 'vpc', subnet_id: subnet, ip_ranges: ['10.0.0.8/29'] }],
    });
    expect(ranged.status).toBe(400);
    expect(fieldsOf(ranged)).toEqual(['interfaces.0.ip_ranges.0']);
  });

  it('createNodeBalancer: vpcs are checked (subnet, region, /30 inside the usable addresses, free, once) and nothing is created on refusal', async () => {
    const v = await vpc(t, [['s1', '10.0.0.0/24']]);
    const subnet = v.subnets[0]?.id as number;
    const elsewhere = await vpc(t, [['s2', '10.1.0.0/24']], { region: 'eu-central' });
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnet }]); // 10.0.0.2
    const refused = async (vpcs: unknown[], field: string) => {
      const r = await nb({ vpcs });
      expect(r.status, r.text).toBe(400);
      expect(fieldsOf(r)).toContain(field);
    };
    await refused([{ subnet_id: 999999 }], 'vpcs.0.subnet_id');
    await refused([{ subnet_id: elsewhere.subnets[0]?.id }], 'vpcs.0.subnet_id');
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.0.64/29' }], 'vpcs.0.ipv4_range');
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.0.65/30' }], 'vpcs.0.ipv4_range');
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.1.0/30' }], 'vpcs.0.ipv4_range');
    // The first two and last two addresses of the subnet are not the NodeBalancer's.
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.0.0/30' }], 'vpcs.0.ipv4_range');
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.0.252/30' }], 'vpcs.0.ipv4_range');
    await refused([{ subnet_id: subnet, ipv4_range: 'nonsense' }], 'vpcs.0.ipv4_range');
    await refused([{ subnet_id: subnet, ipv6_range: 'fd00::/64' }], 'vpcs.0.ipv6_range');
    await refused(
      [
        { subnet_id: subnet, ipv4_range: '10.0.0.4/30' },
        { subnet_id: subnet, ipv4_range: '10.0.0.8/30' },
      ],
      'vpcs.1.subnet_id',
    );
    expect(await counts()).toEqual({ nbs: 0, vpcs: 0 });
    // A range held by another NodeBalancer, or holding an instance's address, is refused.
    expect((await nb({ vpcs: [{ subnet_id: subnet, ipv4_range: '10.0.0.4/30' }] })).status).toBe(
      200,
    );
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.0.4/30' }], 'vpcs.0.ipv4_range');
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnet, ip_ranges: ['10.0.0.16/30'] }]);
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnet, ipv4: { vpc: '10.0.0.9' } }]);
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.0.8/30' }], 'vpcs.0.ipv4_range');
    await refused([{ subnet_id: subnet, ipv4_range: '10.0.0.16/30' }], 'vpcs.0.ipv4_range');
    expect(await counts()).toEqual({ nbs: 1, vpcs: 1 });
  });

  it('createNodeBalancerNode: subnet_id and a VPC address of an instance in it give the node its vpc_config_id; other addresses are refused', async () => {
    const v = await vpc(t, [
      ['s1', '192.168.0.0/25'],
      ['s2', '192.168.1.0/25'],
    ]);
    const [s1, s2] = v.subnets.map((s) => s.id) as [number, number];
    const inst = await instanceWith(t, [{ purpose: 'vpc', subnet_id: s1 }], { booted: true });
    // An instance in s2 holds 192.168.1.2: the refusal below is about the subnet alone.
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: s2 }]);
    const created = await nb({ vpcs: [{ ipv4_range: '192.168.0.64/30', subnet_id: s1 }] });
    expect(created.status).toBe(200);
    const id = created.body.id as number;
    const cfgId = (await t.get(`/v4/nodebalancers/${id}/vpcs`)).body.data[0].id as number;
    const config = await t.post(`/v4/nodebalancers/${id}/configs`, {
      port: 80,
      protocol: 'http',
      algorithm: 'roundrobin',
      check_interval: 60,
    });
    expect(config.status).toBe(200);
    const nodes = `/v4/nodebalancers/${id}/configs/${config.body.id}/nodes`;
    const node = await t.post(nodes, {
      address: '192.168.0.2:8080',
      label: 'go-node',
      weight: 10,
      mode: 'accept',
      subnet_id: s1,
    });
    expect(node.status, node.text).toBe(200);
    expect(node.body).toMatchObject({
      address: '192.168.0.2:8080',
      vpc_config_id: cfgId,
      nodebalancer_id: id,
      config_id: config.body.id,
      // The instance runs: the simulated health check finds it.
      status: 'UP',
    });
    // The instance lists the NodeBalancer that reaches it through the VPC.
    const ofInstance = await t.get(`/v4/compute/instances/${inst.id}/nodebalancers`);
    expect(ofInstance.body.data.map((x: { id: number }) => x.id)).toEqual([id]);
    // Without subnet_id a VPC address is not a private address of an instance.
    const bare = await t.post(nodes, { address: '192.168.0.2:8081', label: 'bare' });
    expect(fieldsOf(bare)).toEqual(['address']);
    // A subnet without a configuration of this NodeBalancer; an address no interface holds.
    const noCfg = await t.post(nodes, {
      address: '192.168.1.2:80',
      label: 'node-2',
      subnet_id: s2,
    });
    expect(fieldsOf(noCfg)).toEqual(['subnet_id']);
    const free = await t.post(nodes, { address: '192.168.0.9:80', label: 'node-3', subnet_id: s1 });
    expect(fieldsOf(free)).toEqual(['address']);
    // Update: the node stays in its configuration; a new address is checked in its subnet.
    const put = await t.put(`${nodes}/${node.body.id}`, {
      label: 'updated',
      address: '192.168.0.2:9090',
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ label: 'updated', vpc_config_id: cfgId });
    const bad = await t.put(`${nodes}/${node.body.id}`, { address: '192.168.0.10:80' });
    expect(fieldsOf(bad)).toEqual(['address']);
    // Rebuild with subnet_id, as the clients send it.
    const rebuilt = await t.post(`/v4/nodebalancers/${id}/configs/${config.body.id}/rebuild`, {
      port: 80,
      protocol: 'http',
      algorithm: 'roundrobin',
      check_interval: 60,
      nodes: [
        { address: '192.168.0.2:80', label: 'test', weight: 1, mode: 'accept', subnet_id: s1 },
      ],
    });
    expect(rebuilt.status, rebuilt.text).toBe(200);
    expect(rebuilt.body.nodes_status).toEqual({ up: 1, down: 0 });
    const listed = await t.get(nodes);
    expect(listed.body.data.map((n: { vpc_config_id: number }) => n.vpc_config_id)).toEqual([
      cfgId,
    ]);
  });

  it('createNodeBalancer: configs with nodes in the VPC of the same request', async () => {
    const v = await vpc(t, [['s1', '10.0.0.0/24']]);
    const subnet = v.subnets[0]?.id as number;
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnet }]);
    const r = await nb({
      vpcs: [{ subnet_id: subnet }],
      configs: [{ port: 80, nodes: [{ address: '10.0.0.2:80', label: 'web', subnet_id: subnet }] }],
    });
    expect(r.status, r.text).toBe(200);
    const cfgId = (await t.get(`/v4/nodebalancers/${r.body.id}/vpcs`)).body.data[0].id;
    const config = (await t.get(`/v4/nodebalancers/${r.body.id}/configs`)).body.data[0];
    const nodes = await t.get(`/v4/nodebalancers/${r.body.id}/configs/${config.id}/nodes`);
    expect(nodes.body.data[0]).toMatchObject({
      address: '10.0.0.2:80',
      vpc_config_id: cfgId,
      status: 'DOWN',
    });
    // A node naming a subnet the request gives no configuration for.
    const other = await nb({
      configs: [{ port: 80, nodes: [{ address: '10.0.0.2:80', label: 'web', subnet_id: subnet }] }],
    });
    expect(fieldsOf(other)).toEqual(['configs.0.nodes.0.subnet_id']);
  });

  it('deleteVPCSubnet, deleteVPC: refused while a NodeBalancer is in the subnet; the NodeBalancer delete frees it', async () => {
    const v = await vpc(t, [['s1', '10.0.0.0/24']]);
    const subnet = v.subnets[0]?.id as number;
    const r = await nb({ vpcs: [{ subnet_id: subnet }] });
    const sub = await t.del(`/v4/vpcs/${v.id}/subnets/${subnet}`);
    expect(sub.status).toBe(400);
    expect(sub.body.errors[0].reason).toMatch(/NodeBalancer/);
    expect((await t.del(`/v4/vpcs/${v.id}`)).status).toBe(400);
    expect((await t.get(`/v4/vpcs/${v.id}/subnets/${subnet}`)).status).toBe(200);
    expect((await t.del(`/v4/nodebalancers/${r.body.id}`)).status).toBe(200);
    expect(await counts()).toEqual({ nbs: 0, vpcs: 0 });
    expect((await t.get(`/v4/vpcs/${v.id}/subnets/${subnet}`)).body.nodebalancers).toEqual([]);
    expect((await t.del(`/v4/vpcs/${v.id}/subnets/${subnet}`)).status).toBe(200);
  });

  it('getNodeBalancerVpcConfigs: nodebalancers:read_only; a restricted user needs a grant on the NodeBalancer', async () => {
    const v = await vpc(t, [['s1', '10.0.0.0/24']]);
    const r = await nb({ vpcs: [{ subnet_id: v.subnets[0]?.id }] });
    const url = `/v4/nodebalancers/${r.body.id}/vpcs`;
    const none = await createTestUser(t);
    expect((await t.get(url, { token: none.token })).status).toBe(404);
    const reader = await createTestUser(t, {
      grants: [{ type: 'nodebalancer', id: r.body.id, permissions: 'read_only' }],
    });
    expect((await t.get(url, { token: reader.token })).body.results).toBe(1);
    const scoped = await createTestUser(t, { restricted: false, scopes: 'vpc:read_only' });
    expect((await t.get(url, { token: scoped.token })).status).toBe(401);
    const nbRead = await createTestUser(t, {
      restricted: false,
      scopes: 'nodebalancers:read_only',
    });
    expect((await t.get(url, { token: nbRead.token })).status).toBe(200);
  });
});
