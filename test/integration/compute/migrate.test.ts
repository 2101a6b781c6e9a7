import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { catalogueData } from '../../../src/modules/catalogue/catalogue.data.js';
import { upgradeRefusal } from '../../../src/modules/compute/migrate.service.js';
import { eventsOf, runningInstance, statusOf, stepThrough } from './ops-helpers.js';

describe('compute migrate', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const addInterface = async (id: number, purpose: 'vpc' | 'vlan') => {
    const cfg = (await t.get(`/v4/compute/instances/${id}/configs`)).body.data[0];
    await t.ctx.db.db
      .insertInto('config_interfaces')
      .values({
        config_id: cfg.id,
        instance_id: id,
        position: 1,
        purpose,
        label: purpose === 'vlan' ? 'vlan-1' : null,
        ipam_address: null,
        is_primary: 0,
        vpc_id: null,
        subnet_id: null,
        ipv4_vpc: null,
        ipv4_nat_1_1: null,
        ip_ranges: null,
      })
      .execute();
  };

  it('migrateComputeInstance: without region, a host migration that shuts down and reboots', async () => {
    const id = await runningInstance(t);
    const before = (await t.get(`/v4/compute/instances/${id}`)).body;
    const r = await t.post(`/v4/compute/instances/${id}/migrate`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect(await stepThrough(t, id, 20_000, 30)).toEqual([
      'migrating',
      'offline',
      'booting',
      'running',
    ]);
    const after = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(after.host_uuid).not.toBe(before.host_uuid);
    expect(after.region).toBe('us-east');
    expect((await eventsOf(t, id)).slice(2)).toEqual([
      ['compute_migrate', 'finished'],
      ['compute_boot', 'finished'],
    ]);
  });

  it('migrateComputeInstance: warm host migration keeps the instance running', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/migrate`, { type: 'warm' });
    expect(await stepThrough(t, id, 20_000, 30)).toEqual(['migrating', 'running']);
  });

  it('migrateComputeInstance: with region, compute_migrate_datacenter_create then compute_migrate_datacenter; new region and addresses', async () => {
    const id = await runningInstance(t, { private_ip: true });
    const before = (await t.get(`/v4/compute/instances/${id}`)).body;
    const r = await t.post(`/v4/compute/instances/${id}/migrate`, { region: 'us-central' });
    expect(r.status).toBe(200);
    expect(await statusOf(t, id)).toBe('migrating');
    // Until the move completes the instance keeps its region and addresses.
    const mid = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(mid.region).toBe('us-east');
    expect(mid.ipv4).toEqual(before.ipv4);
    await t.settle();
    const after = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(after.status).toBe('running');
    expect(after.region).toBe('us-central');
    expect(after.ipv4).toHaveLength(2);
    // The public address comes from the new region's pool (private pools are per region).
    expect(after.ipv4[0]).not.toBe(before.ipv4[0]);
    expect(after.ipv6).not.toBe(before.ipv6);
    const ips = await t.ctx.db.db.selectFrom('ip_addresses').selectAll().execute();
    expect(ips.every((i) => i.region === 'us-central' && i.instance_id === id)).toBe(true);
    expect((await eventsOf(t, id)).slice(2)).toEqual([
      ['compute_migrate_datacenter_create', 'notification'],
      ['compute_migrate_datacenter', 'finished'],
      ['compute_boot', 'finished'],
    ]);
  });

  it('migrateComputeInstance: attached volumes move with it and cannot be deleted meanwhile', async () => {
    const id = await runningInstance(t);
    const v = await t.post('/v4/volumes', { label: 'data-1', compute_id: id, size: 20 });
    expect(v.status).toBe(200);
    await t.settle();
    await t.post(`/v4/compute/instances/${id}/migrate`, { region: 'us-central' });
    const del = await t.del(`/v4/volumes/${v.body.id}`);
    expect(del.status).toBe(400);
    expect(del.body.errors[0].reason).toMatch(/migrating/);
    await t.settle();
    const vol = (await t.get(`/v4/volumes/${v.body.id}`)).body;
    expect(vol.region).toBe('us-central');
    expect(vol.compute_id).toBe(id);
  });

  it('migrateComputeInstance: warm is refused for a data-center move', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`/v4/compute/instances/${id}/migrate`, {
      region: 'us-central',
      type: 'warm',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('type');
    expect(await statusOf(t, id)).toBe('running');
  });

  it("migrateComputeInstance: the instance's own region is a host migration (warm allowed)", async () => {
    const id = await runningInstance(t);
    const before = (await t.get(`/v4/compute/instances/${id}`)).body;
    const r = await t.post(`/v4/compute/instances/${id}/migrate`, {
      region: 'us-east',
      type: 'warm',
    });
    expect(r.status, r.text).toBe(200);
    expect(await stepThrough(t, id, 20_000, 30)).toEqual(['migrating', 'running']);
    const after = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(after.region).toBe('us-east');
    expect(after.ipv4).toEqual(before.ipv4);
    expect(after.host_uuid).not.toBe(before.host_uuid);
    expect((await eventsOf(t, id)).slice(2)).toEqual([['compute_migrate', 'finished']]);
  });

  it('migrateComputeInstance: refuses an unknown region and a region without instances', async () => {
    const id = await runningInstance(t);
    for (const region of ['mars-1', 'eu-south']) {
      const r = await t.post(`/v4/compute/instances/${id}/migrate`, { region });
      expect(r.status, region).toBe(400);
      expect(r.body.errors[0].field).toBe('region');
    }
  });

  it('migrateComputeInstance: refused for an instance with a vpc interface', async () => {
    const id = await runningInstance(t);
    await addInterface(id, 'vpc');
    const r = await t.post(`/v4/compute/instances/${id}/migrate`, { region: 'us-central' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/vpc interface/);
    // A host migration is still possible.
    expect((await t.post(`/v4/compute/instances/${id}/migrate`)).status).toBe(200);
  });

  it('migrateComputeInstance: refused for a VLAN between legacy and next-generation network centers', async () => {
    const id = await runningInstance(t);
    await addInterface(id, 'vlan');
    const r = await t.post(`/v4/compute/instances/${id}/migrate`, { region: 'us-iad' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/VLAN/);
    expect(
      (await t.post(`/v4/compute/instances/${id}/migrate`, { region: 'us-central' })).status,
    ).toBe(200);
  });

  it('migrateComputeInstance: upgrade without a free upgrade is a 400 and nothing migrates', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`/v4/compute/instances/${id}/migrate`, {
      region: 'us-central',
      upgrade: true,
    });
    expect(r.status).toBe(400);
    expect(await statusOf(t, id)).toBe('running');
    expect((await eventsOf(t, id)).map((e) => e[0])).not.toContain(
      'compute_migrate_datacenter_create',
    );
    const ips = await t.ctx.db.db.selectFrom('ip_addresses').selectAll().execute();
    expect(ips).toHaveLength(1);
  });

  it('migrateComputeInstance: upgrade is refused when the target region does not offer the successor', () => {
    const data = catalogueData();
    const premium = data.types.find((x) => x.class === 'premium');
    const standard = data.types.find((x) => x.id === 'g6-standard-1');
    const noPremium = data.regions.find((r) => r.id === 'us-central');
    const withPremium = data.regions.find((r) => r.id === 'us-east');
    expect(upgradeRefusal(premium, noPremium)).toMatch(/does not allow/);
    expect(upgradeRefusal(premium, withPremium)).toBeUndefined();
    expect(upgradeRefusal(standard, noPremium)).toBeUndefined();
    expect(upgradeRefusal(undefined, withPremium)).toMatch(/No free upgrade/);
  });

  it('migrateComputeInstance: upgrade moves a host migration to the successor type', async () => {
    const id = await runningInstance(t, { type: 'g5-standard-1' });
    const ok = await t.post(`/v4/compute/instances/${id}/migrate`, { upgrade: true });
    expect(ok.status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${id}`)).body.type).toBe('g6-standard-1');
  });

  it('migrateComputeInstance: a queued migration blocks another', async () => {
    const id = await runningInstance(t);
    expect((await t.post(`/v4/compute/instances/${id}/migrate`)).status).toBe(200);
    const again = await t.post(`/v4/compute/instances/${id}/migrate`, { region: 'us-central' });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].reason).toMatch(/migration pending/);
    await t.settle();
    expect((await t.post(`/v4/compute/instances/${id}/migrate`)).status).toBe(200);
  });
});
