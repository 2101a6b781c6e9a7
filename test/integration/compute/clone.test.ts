import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventsOf, runningInstance, statusOf } from './ops-helpers.js';

describe('compute clone', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const clone = (id: number, body: Record<string, unknown>) =>
    t.post(`/v4/compute/instances/${id}/clone`, body);
  const newClone = { region: 'us-east', type: 'g6-standard-1' };

  it('cloneComputeInstance: to a new instance; the source shows cloning, then returns to running', async () => {
    const src = await runningInstance(t, { tags: ['prod'], label: 'web-1' });
    const r = await clone(src, { ...newClone, label: 'web-2' });
    expect(r.status).toBe(200);
    expect(r.body.label).toBe('web-2');
    expect(r.body.status).toBe('provisioning');
    expect(r.body.tags).toEqual(['prod']);
    const target = r.body.id;
    expect(await statusOf(t, src)).toBe('cloning');
    const disks = (await t.get(`/v4/compute/instances/${target}/disks`)).body.data;
    expect(disks.map((d: any) => d.status)).toEqual(['not ready', 'not ready']);
    await t.settle();
    expect(await statusOf(t, src)).toBe('running');
    expect(await statusOf(t, target)).toBe('offline');
    const after = (await t.get(`/v4/compute/instances/${target}/disks`)).body.data;
    expect(after.map((d: any) => d.status)).toEqual(['ready', 'ready']);
    const configs = (await t.get(`/v4/compute/instances/${target}/configs`)).body.data;
    expect(configs).toHaveLength(1);
    expect(configs[0].devices.sda.disk_id).toBe(after[0].id);
    expect(await eventsOf(t, target)).toEqual([['compute_create', 'notification']]);
    const ev = await t.get('/v4/account/events', { filter: { action: 'compute_clone' } });
    expect(ev.body.data).toHaveLength(1);
    expect(ev.body.data[0].status).toBe('finished');
    expect(ev.body.data[0].entity.id).toBe(src);
    expect(ev.body.data[0].secondary_entity.id).toBe(target);
  });

  it('cloneComputeInstance: configs and disks selection follows the spec table', async () => {
    const src = await runningInstance(t, { booted: false });
    // Room for one more disk: the boot disk is made smaller.
    await t.ctx.db.db
      .updateTable('disks')
      .set({ size: 20000 })
      .where('instance_id', '=', src)
      .where('filesystem', '<>', 'swap')
      .execute();
    const extra = await t.post(`/v4/compute/instances/${src}/disks`, {
      label: 'extra',
      size: 1000,
    });
    expect(extra.status).toBe(200);
    await t.settle();
    const none = await clone(src, { ...newClone, configs: [] });
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${none.body.id}/configs`)).body.data).toHaveLength(
      0,
    );
    expect((await t.get(`/v4/compute/instances/${none.body.id}/disks`)).body.data).toHaveLength(0);
    const onlyExtra = await clone(src, { ...newClone, configs: [], disks: [extra.body.id] });
    await t.settle();
    const d = (await t.get(`/v4/compute/instances/${onlyExtra.body.id}/disks`)).body.data;
    expect(d.map((x: any) => x.label)).toEqual(['extra']);
    const all = await clone(src, newClone);
    await t.settle();
    // Omitted configs: all configs and their disks, not the extra disk.
    expect((await t.get(`/v4/compute/instances/${all.body.id}/disks`)).body.data).toHaveLength(2);
    const bad = await clone(src, { ...newClone, configs: [999999] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('configs');
  });

  it('cloneComputeInstance: a 1:1 NAT on an interface becomes any; a vpc interface gets a new address of its subnet', async () => {
    const vpc = await t.post('/v4/vpcs', {
      label: 'clone-vpc',
      region: 'us-iad',
      subnets: [{ label: 'sn', ipv4: '10.0.0.0/24' }],
    });
    expect(vpc.status, JSON.stringify(vpc.body)).toBe(200);
    const subnet = vpc.body.subnets[0].id;
    const src = await runningInstance(t, { region: 'us-iad', booted: false });
    const cfg = (await t.get(`/v4/compute/instances/${src}/configs`)).body.data[0];
    const pub = (await t.get(`/v4/compute/instances/${src}`)).body.ipv4[0];
    const added = await t.post(`/v4/compute/instances/${src}/configs/${cfg.id}/interfaces`, {
      purpose: 'vpc',
      subnet_id: subnet,
      ipv4: { nat_1_1: pub },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const r = await clone(src, { region: 'us-iad', type: 'g6-standard-1' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const cfgs = (await t.get(`/v4/compute/instances/${r.body.id}/configs`)).body.data;
    const iface = cfgs[0].interfaces.find((i: { purpose: string }) => i.purpose === 'vpc');
    // Stored as `any` (the clone's own first public IPv4), answered as that address.
    expect(iface.ipv4.nat_1_1).toBe(r.body.ipv4[0]);
    expect(iface.ipv4.nat_1_1).not.toBe(pub);
    expect(iface.subnet_id).toBe(subnet);
    expect(iface.ipv4.vpc).toMatch(/^10\.0\.0\.\d+$/);
    expect(iface.ipv4.vpc).not.toBe(added.body.ipv4.vpc);
  });

  it('cloneComputeInstance: the sixth concurrent clone from one source is a 400', async () => {
    const src = await runningInstance(t);
    for (let i = 0; i < 5; i++) expect((await clone(src, newClone)).status).toBe(200);
    const sixth = await clone(src, newClone);
    expect(sixth.status).toBe(400);
    expect(sixth.body.errors[0].reason).toMatch(/At most 5 clones/);
    await t.settle();
    expect((await clone(src, newClone)).status).toBe(200);
  });

  it('cloneComputeInstance: ten concurrent requests produce at most five clones, the rest 400', async () => {
    const src = await runningInstance(t);
    const replies = await Promise.all(Array.from({ length: 10 }, () => clone(src, newClone)));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBeLessThanOrEqual(5);
    expect(ok.length).toBeGreaterThan(0);
    expect(replies.filter((r) => r.status !== 200).every((r) => r.status === 400)).toBe(true);
    const rows = await t.ctx.db.db.selectFrom('instance_clones').selectAll().execute();
    expect(rows).toHaveLength(ok.length);
  });

  it('cloneComputeInstance: onto an existing idle target with room for the disks', async () => {
    const src = await runningInstance(t, { type: 'g6-nanode-1' });
    const target = (
      await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-standard-2' })
    ).body.id;
    await t.settle();
    const r = await clone(src, { compute_id: target });
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(target);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${target}/disks`)).body.data).toHaveLength(2);
    // A target too small for the disks is refused.
    const small = (
      await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' })
    ).body.id;
    await t.settle();
    const big = await runningInstance(t, { type: 'g6-standard-2', booted: false });
    const refused = await clone(big, { compute_id: small });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('compute_id');
  });

  it('cloneComputeInstance: an existing target must be idle; new-instance fields are refused for it', async () => {
    const src = await runningInstance(t);
    const target = await runningInstance(t);
    await t.post(`/v4/compute/instances/${target}/reboot`);
    expect((await clone(src, { compute_id: target })).body).toEqual({
      errors: [{ reason: 'Compute busy.' }],
    });
    await t.settle();
    const r = await clone(src, { compute_id: target, label: 'nope-1', region: 'us-east' });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.field).sort()).toEqual(['label', 'region']);
  });

  it('cloneComputeInstance: region and type are required for a new instance', async () => {
    const src = await runningInstance(t);
    const r = await clone(src, {});
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.field).sort()).toEqual(['region', 'type']);
  });

  it('cloneComputeInstance: user_data is required when the source has it, and refused for an existing target', async () => {
    const ud = Buffer.from('#cloud-config\n').toString('base64');
    const src = await runningInstance(t, { metadata: { user_data: ud } });
    const missing = await clone(src, newClone);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('metadata.user_data');
    const ok = await clone(src, { ...newClone, metadata: { user_data: ud } });
    expect(ok.status).toBe(200);
    expect(ok.body.has_user_data).toBe(true);
    await t.settle();
    const target = await runningInstance(t);
    const existing = await clone(src, { compute_id: target, metadata: { user_data: ud } });
    expect(existing.status).toBe(400);
    expect(existing.body.errors[0].field).toBe('metadata.user_data');
  });

  it('deleteComputeInstance: refused while the instance is cloning', async () => {
    const src = await runningInstance(t);
    await clone(src, newClone);
    const del = await t.del(`/v4/compute/instances/${src}`);
    expect(del.status).toBe(400);
    expect(del.body.errors[0].reason).toMatch(/cloning/);
    await t.settle();
    expect((await t.del(`/v4/compute/instances/${src}`)).status).toBe(200);
  });

  it('cloneComputeInstance: needs add_computes', async () => {
    const src = await runningInstance(t);
    const { createTestUser } = await import('../../helpers/auth.js');
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: src, permissions: 'read_write' }],
    });
    const r = await t.post(`/v4/compute/instances/${src}/clone`, newClone, { token: u.token });
    expect(r.status).toBe(403);
  });
});
