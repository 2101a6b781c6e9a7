import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';
const SITE = 'us-den-edge-1';
const EDGE_PLAN = 'nanode-edge-1';

interface Region {
  id: string;
  site_type: string;
  capabilities: string[];
}

/**
 * The shipped catalogue's distributed sites and plan classes, and the rules their capabilities
 * give: every area refuses what a region's capability list does not offer.
 */
describe('catalogue classes and distributed sites', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const deploy = async (region: string, type: string, extra: Record<string, unknown> = {}) => {
    const r = await t.post('/v4/compute/instances', {
      region,
      type,
      image: 'compute/debian12',
      root_pass: STRONG,
      booted: false,
      ...extra,
    });
    await t.settle();
    return r;
  };
  const count = async () => (await t.get('/v4/compute/instances')).body.results as number;

  it('getRegions: distributed sites are listed with their site_type and their capability set', async () => {
    const regions = (await t.get('/v4/regions?page_size=500')).body.data as Region[];
    const sites = regions.filter((r) => r.site_type === 'distributed');
    expect(sites.map((r) => r.id).sort()).toEqual([
      'de-ham-edge-1',
      'fr-mrs-edge-1',
      'us-den-edge-1',
    ]);
    for (const s of sites)
      expect(s.capabilities).toEqual([
        'Computes',
        'Cloud Firewall',
        'Distributed Plans',
        'Placement Group',
      ]);
    const one = await t.get(`/v4/regions/${SITE}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: SITE,
      site_type: 'distributed',
      label: 'Edge - Denver, CO',
    });
    // Every core region serving instances has the Backup service.
    const core = regions.filter(
      (r) => r.site_type === 'core' && r.capabilities.includes('Computes'),
    );
    expect(core.length).toBeGreaterThan(0);
    for (const r of core) expect(r.capabilities).toContain('Backups');
  });

  it('getComputeTypes: the recorded standard and premium plans and the distributed plans, with prices', async () => {
    const types = (await t.get('/v4/compute/types?page_size=500')).body.data as {
      id: string;
      class: string;
      price: { monthly: number };
      region_prices: unknown[];
    }[];
    const by = new Map(types.map((x) => [x.id, x]));
    expect(by.get('g6-standard-32')).toMatchObject({ class: 'standard', price: { monthly: 1152 } });
    expect(by.get('g7-premium-48')).toMatchObject({ class: 'premium', price: { monthly: 1037 } });
    expect(by.get('g7-premium-50')).toMatchObject({ class: 'premium', price: { monthly: 1382 } });
    expect(by.get('g7-premium-56')).toMatchObject({ class: 'premium', price: { monthly: 2765 } });
    expect(by.get(EDGE_PLAN)).toMatchObject({ class: 'nanode', region_prices: [] });
    expect(by.get('g6-dedicated-edge-2')).toMatchObject({ class: 'dedicated' });
    const one = await t.get('/v4/compute/types/g6-dedicated-edge-2');
    expect(one.status).toBe(200);
    expect(one.body.vcpus).toBe(2);
  });

  it('createCompute: a distributed site takes its distributed plans, encrypted, with site_type distributed', async () => {
    const r = await deploy(SITE, EDGE_PLAN);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      region: SITE,
      site_type: 'distributed',
      disk_encryption: 'enabled',
    });
    expect(r.body.ipv4).toHaveLength(1);
    const disks = (await t.get(`/v4/compute/instances/${r.body.id}/disks`)).body.data;
    for (const d of disks) expect(d.disk_encryption).toBe('enabled');
  });

  it('createCompute: a core plan at a distributed site, and a distributed plan in a core region, are refused', async () => {
    const core = await deploy(SITE, 'g6-nanode-1');
    expect(core.status).toBe(400);
    expect(core.body.errors).toEqual([
      { field: 'type', reason: 'This type is not available in this region' },
    ]);
    const edge = await deploy('us-east', EDGE_PLAN);
    expect(edge.status).toBe(400);
    expect(edge.body.errors[0].field).toBe('type');
    expect(await count()).toBe(0);
  });

  it('createCompute: GPU and premium plans only where the region has the capability', async () => {
    // us-iad has Premium Plans but no GPU Computes; us-central has neither.
    const gpu = await deploy('us-iad', 'g1-gpu-rtx6000-1');
    expect(gpu.status).toBe(400);
    expect(gpu.body.errors[0]).toEqual({
      field: 'type',
      reason: 'This type is not available in this region',
    });
    const premium = await deploy('us-central', 'g7-premium-2');
    expect(premium.status).toBe(400);
    expect(premium.body.errors[0].field).toBe('type');
    expect(await count()).toBe(0);
    expect((await deploy('us-east', 'g1-gpu-rtx6000-1')).status).toBe(200);
    expect((await deploy('us-iad', 'g7-premium-2')).status).toBe(200);
  });

  it('createCompute: backups, a private address, unencrypted disks and a VLAN are refused at a distributed site', async () => {
    const r = await deploy(SITE, EDGE_PLAN, {
      backups_enabled: true,
      private_ip: true,
      disk_encryption: 'disabled',
      interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: 'edge-vlan' }],
    });
    expect(r.status).toBe(400);
    const fields = (r.body.errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual([
      'backups_enabled',
      'disk_encryption',
      'interfaces.1.purpose',
      'private_ip',
    ]);
    expect(await count()).toBe(0);
  });

  it('createCompute: the account-wide backups setting does not enrol an instance at a distributed site', async () => {
    expect((await t.put('/v4/account/settings', { backups_enabled: true })).status).toBe(200);
    const edge = await deploy(SITE, EDGE_PLAN);
    expect(edge.status).toBe(200);
    expect(edge.body.backups.enabled).toBe(false);
    const core = await deploy('us-east', 'g6-nanode-1');
    expect(core.body.backups.enabled).toBe(true);
  });

  it('enableBackups: refused for an instance at a distributed site', async () => {
    const inst = (await deploy(SITE, EDGE_PLAN)).body;
    const r = await t.post(`/v4/compute/instances/${inst.id}/backups/enable`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toBe('Backups are not available in this region');
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.backups.enabled).toBe(false);
  });

  it('addComputeIp: a private IPv4 address is refused at a distributed site, a public one is not', async () => {
    const inst = (await deploy(SITE, EDGE_PLAN)).body;
    const priv = await t.post(`/v4/compute/instances/${inst.id}/ips`, {
      type: 'ipv4',
      public: false,
    });
    expect(priv.status).toBe(400);
    expect(priv.body.errors[0].field).toBe('public');
    const ips = (await t.get(`/v4/compute/instances/${inst.id}/ips`)).body;
    expect(ips.ipv4.private).toEqual([]);
  });

  it('createVolume, createNodeBalancer, createVpc, createBucket, uploadImage: refused at a distributed site', async () => {
    const vol = await t.post('/v4/volumes', { label: 'edge-vol', size: 20, region: SITE });
    expect(vol.status).toBe(400);
    expect(vol.body.errors[0]).toEqual({
      field: 'region',
      reason: 'Block Storage is not available in this region',
    });
    const inst = (await deploy(SITE, EDGE_PLAN)).body;
    const attached = await t.post('/v4/volumes', {
      label: 'edge-vol2',
      size: 20,
      compute_id: inst.id,
    });
    expect(attached.status).toBe(400);
    const nb = await t.post('/v4/nodebalancers', { region: SITE });
    expect(nb.status).toBe(400);
    expect(nb.body.errors[0].field).toBe('region');
    const vpc = await t.post('/v4/vpcs', {
      label: 'edge-vpc',
      region: SITE,
      subnets: [{ label: 's1', ipv4: '10.0.0.0/24' }],
    });
    expect(vpc.status).toBe(400);
    expect(vpc.body.errors[0].field).toBe('region');
    const bucket = await t.post('/v4/object-storage/buckets', {
      label: 'edge-bucket',
      region: SITE,
    });
    expect(bucket.status).toBe(400);
    expect(bucket.body.errors[0].field).toBe('region');
    const upload = await t.post('/v4/images/upload', { label: 'edge-img', region: SITE });
    expect(upload.status).toBe(400);
    expect(upload.body.errors[0]).toEqual({
      field: 'region',
      reason: `Images cannot be stored in region ${SITE}.`,
    });
    expect((await t.get('/v4/volumes')).body.results).toBe(0);
    expect((await t.get('/v4/nodebalancers')).body.results).toBe(0);
    expect((await t.get('/v4/vpcs')).body.results).toBe(0);
  });

  it('createPlacementGroup and createFirewall: offered at a distributed site (its capabilities)', async () => {
    const pg = await t.post('/v4/placement/groups', {
      label: 'edge-pg',
      region: SITE,
      placement_group_type: 'anti_affinity:local',
      placement_group_policy: 'strict',
    });
    expect(pg.status).toBe(200);
    const inst = (await deploy(SITE, EDGE_PLAN)).body;
    const fw = await t.post('/v4/networking/firewalls', {
      label: 'edge-fw',
      rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
      devices: { computes: [inst.id] },
    });
    expect(fw.status).toBe(200);
  });

  it('addConfigInterface and createComputeInterface: a VLAN is refused at a distributed site', async () => {
    const legacy = (await deploy(SITE, EDGE_PLAN)).body;
    const configs = (await t.get(`/v4/compute/instances/${legacy.id}/configs`)).body.data;
    const add = await t.post(
      `/v4/compute/instances/${legacy.id}/configs/${configs[0].id}/interfaces`,
      { purpose: 'vlan', label: 'edge-vlan' },
    );
    expect(add.status).toBe(400);
    expect(add.body.errors[0]).toEqual({
      field: 'purpose',
      reason: 'VLANs are not available in this region',
    });
    const gen = await deploy(SITE, EDGE_PLAN, {
      interface_generation: 'compute',
      interfaces: [{ public: {} }],
    });
    expect(gen.status).toBe(200);
    await t.post(`/v4/compute/instances/${gen.body.id}/shutdown`);
    await t.settle();
    const vlan = await t.post(`/v4/compute/instances/${gen.body.id}/interfaces`, {
      vlan: { vlan_label: 'edge-vlan' },
    });
    expect(vlan.status).toBe(400);
    expect(vlan.body.errors[0].reason).toBe('VLANs are not available in this region');
  });

  it('cloneCompute: to a distributed site needs a distributed plan; the copy is encrypted and has no private address', async () => {
    const src = (await deploy('us-east', 'g6-nanode-1')).body;
    const bad = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: SITE,
      type: 'g6-nanode-1',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('type');
    const priv = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: SITE,
      type: EDGE_PLAN,
      private_ip: true,
      backups_enabled: true,
    });
    expect(priv.status).toBe(400);
    expect((priv.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'backups_enabled',
      'private_ip',
    ]);
    const ok = await t.post(`/v4/compute/instances/${src.id}/clone`, {
      region: SITE,
      type: EDGE_PLAN,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ site_type: 'distributed', disk_encryption: 'enabled' });
  });
});
