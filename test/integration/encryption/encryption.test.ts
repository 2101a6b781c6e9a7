import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';

/** Disk encryption (instances, disks) and block storage encryption (volumes). */
describe('encryption', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const deploy = async (region: string, extra: Record<string, unknown> = {}) => {
    const r = await t.post('/v4/compute/instances', {
      region,
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted: false,
      ...extra,
    });
    await t.settle();
    return r;
  };

  it('getRegions: the default catalogue has regions with Disk Encryption and Block Storage Encryption', async () => {
    const regions = (await t.get('/v4/regions?page_size=500')).body.data as {
      id: string;
      capabilities: string[];
    }[];
    const with_ = (c: string) => regions.filter((r) => r.capabilities.includes(c)).map((r) => r.id);
    expect(with_('Disk Encryption')).toContain('us-iad');
    expect(with_('Block Storage Encryption')).toContain('us-iad');
    expect(with_('Disk Encryption')).not.toContain('us-east');
  });

  it('createCompute: disk_encryption defaults to enabled where the region offers it, disabled elsewhere', async () => {
    const enc = await deploy('us-iad');
    expect(enc.status).toBe(200);
    expect(enc.body.disk_encryption).toBe('enabled');
    const disks = (await t.get(`/v4/compute/instances/${enc.body.id}/disks`)).body.data;
    expect(disks.length).toBeGreaterThan(0);
    for (const d of disks) expect(d.disk_encryption).toBe('enabled');
    const plain = await deploy('us-east');
    expect(plain.body.disk_encryption).toBe('disabled');
    expect((await t.get(`/v4/compute/instances/${enc.body.id}`)).body.disk_encryption).toBe(
      'enabled',
    );
  });

  it('createCompute: disk_encryption disabled is kept where the region offers encryption', async () => {
    const r = await deploy('us-iad', { disk_encryption: 'disabled' });
    expect(r.status).toBe(200);
    expect(r.body.disk_encryption).toBe('disabled');
  });

  it('createCompute: disk_encryption enabled in a region without Disk Encryption is refused, nothing created', async () => {
    const r = await deploy('us-east', { disk_encryption: 'enabled' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toContainEqual({
      field: 'disk_encryption',
      reason: 'Disk Encryption is not available in this region',
    });
    expect((await t.get('/v4/compute/instances')).body.results).toBe(0);
  });

  it('createCompute: disk_encryption outside enabled/disabled is a 400 naming the field', async () => {
    const r = await deploy('us-iad', { disk_encryption: 'yes' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.errors)).toContain('disk_encryption');
  });

  it('rebuildCompute: disk_encryption changes the policy; omitted keeps it; refused where not offered', async () => {
    const { body: inst } = await deploy('us-iad');
    const rebuild = (extra: Record<string, unknown>) =>
      t.post(`/v4/compute/instances/${inst.id}/rebuild`, {
        image: 'compute/debian12',
        root_pass: STRONG,
        booted: false,
        ...extra,
      });
    const off = await rebuild({ disk_encryption: 'disabled' });
    expect(off.status).toBe(200);
    expect(off.body.disk_encryption).toBe('disabled');
    await t.settle();
    const kept = await rebuild({});
    expect(kept.body.disk_encryption).toBe('disabled');
    await t.settle();
    for (const d of (await t.get(`/v4/compute/instances/${inst.id}/disks`)).body.data)
      expect(d.disk_encryption).toBe('disabled');

    const { body: plain } = await deploy('us-east');
    const refused = await t.post(`/v4/compute/instances/${plain.id}/rebuild`, {
      image: 'compute/debian12',
      root_pass: STRONG,
      disk_encryption: 'enabled',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('disk_encryption');
  });

  it('createVolume: encryption enabled where the region offers it, shown and kept by a clone', async () => {
    const r = await t.post('/v4/volumes', {
      label: 'enc-vol',
      region: 'us-iad',
      encryption: 'enabled',
    });
    expect(r.status).toBe(200);
    expect(r.body.encryption).toBe('enabled');
    await t.settle();
    expect((await t.get(`/v4/volumes/${r.body.id}`)).body.encryption).toBe('enabled');
    const clone = await t.post(`/v4/volumes/${r.body.id}/clone`, { label: 'enc-vol-2' });
    expect(clone.status).toBe(200);
    expect(clone.body.encryption).toBe('enabled');
    const plain = await t.post('/v4/volumes', { label: 'plain-vol', region: 'us-iad' });
    expect(plain.body.encryption).toBe('disabled');
  });

  it('createVolume: encryption enabled in a region without Block Storage Encryption is refused, nothing created', async () => {
    const r = await t.post('/v4/volumes', {
      label: 'enc-vol',
      region: 'us-east',
      encryption: 'enabled',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toContainEqual({
      field: 'encryption',
      reason: 'Block Storage Encryption is not available in this region',
    });
    expect((await t.get('/v4/volumes')).body.results).toBe(0);
  });

  it('createVolume: encryption enabled attached to an instance in a region without it is refused', async () => {
    const { body: inst } = await deploy('us-east');
    const r = await t.post('/v4/volumes', {
      label: 'enc-vol',
      compute_id: inst.id,
      encryption: 'enabled',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('encryption');
    expect((await t.get('/v4/volumes')).body.results).toBe(0);
  });

  it('getCompute: an instance in a Block Storage Encryption region has the capability', async () => {
    const { body } = await deploy('us-iad');
    expect(body.capabilities).toContain('Block Storage Encryption');
  });
});
