import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventsOf, runningInstance, STRONG, statusOf, stepThrough } from './ops-helpers.js';

describe('compute rebuild, rescue and root password', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const rebuild = (id: number, body: Record<string, unknown>) =>
    t.post(`/v4/compute/instances/${id}/rebuild`, body);

  it('rebuildComputeInstance: shuts down, replaces all disks and configs, deploys the image and boots', async () => {
    const id = await runningInstance(t);
    const oldDisks = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    const oldConfigs = (await t.get(`/v4/compute/instances/${id}/configs`)).body.data;
    const r = await rebuild(id, { image: 'compute/ubuntu22.04', root_pass: STRONG });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('rebuilding');
    expect(r.body.image).toBe('compute/ubuntu22.04');
    expect(await stepThrough(t, id, 5000, 30)).toEqual(['rebuilding', 'booting', 'running']);
    const disks = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    const configs = (await t.get(`/v4/compute/instances/${id}/configs`)).body.data;
    expect(disks).toHaveLength(2);
    expect(disks.every((d: any) => d.status === 'ready')).toBe(true);
    expect(disks.some((d: any) => oldDisks.some((o: any) => o.id === d.id))).toBe(false);
    expect(configs).toHaveLength(1);
    expect(configs[0].id).not.toBe(oldConfigs[0].id);
    expect(configs[0].devices.sda.disk_id).toBe(disks[0].id);
    expect((await eventsOf(t, id)).slice(2)).toEqual([
      ['compute_rebuild', 'finished'],
      ['compute_boot', 'finished'],
    ]);
  });

  it('rebuildComputeInstance: booted false leaves the instance offline', async () => {
    const id = await runningInstance(t);
    await rebuild(id, { image: 'compute/debian12', root_pass: STRONG, booted: false });
    await t.settle();
    expect(await statusOf(t, id)).toBe('offline');
  });

  it('rebuildComputeInstance: image and root_pass are required; a weak root_pass is refused', async () => {
    const id = await runningInstance(t);
    expect((await rebuild(id, { root_pass: STRONG })).status).toBe(400);
    expect((await rebuild(id, { image: 'compute/debian12' })).status).toBe(400);
    const weak = await rebuild(id, { image: 'compute/debian12', root_pass: 'password1' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors).toEqual([
      { field: 'root_pass', reason: 'Password does not meet strength requirement' },
    ]);
    const unknown = await rebuild(id, { image: 'compute/nope', root_pass: STRONG });
    expect(unknown.body.errors[0].field).toBe('image');
    expect(await statusOf(t, id)).toBe('running');
  });

  it('rebuildComputeInstance: type resizes during the rebuild, with the resize refusals', async () => {
    const id = await runningInstance(t);
    const r = await rebuild(id, {
      image: 'compute/debian12',
      root_pass: STRONG,
      type: 'g6-standard-2',
    });
    expect(r.status).toBe(200);
    await t.settle();
    const inst = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(inst.type).toBe('g6-standard-2');
    const disks = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    expect(disks.reduce((s: number, d: any) => s + d.size, 0)).toBe(81920);
    await t.ctx.db.db.updateTable('accounts').set({ balance_cents: 100 }).execute();
    const owed = await rebuild(id, {
      image: 'compute/debian12',
      root_pass: STRONG,
      type: 'g6-standard-4',
    });
    expect(owed.status).toBe(400);
    expect(owed.body.errors[0].reason).toMatch(/outstanding balance/);
  });

  it('rebuildComputeInstance: a type change is refused with a pending migration', async () => {
    const id = await runningInstance(t);
    expect((await t.post(`/v4/compute/instances/${id}/migrate`)).status).toBe(200);
    const r = await rebuild(id, {
      image: 'compute/debian12',
      root_pass: STRONG,
      type: 'g6-standard-2',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/migration pending/);
  });

  it('rebuildComputeInstance: refused while busy', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/reboot`);
    const r = await rebuild(id, { image: 'compute/debian12', root_pass: STRONG });
    expect(r.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it('rescueComputeInstance: reboots a running instance into rescue mode with the given devices', async () => {
    const id = await runningInstance(t);
    const disks = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    const r = await t.post(`/v4/compute/instances/${id}/rescue`, {
      devices: { sda: { disk_id: disks[0].id }, sdb: { disk_id: disks[1].id } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect(await statusOf(t, id)).toBe('rebooting');
    await t.settle();
    expect(await statusOf(t, id)).toBe('running');
    expect((await eventsOf(t, id)).slice(2)).toEqual([['compute_reboot', 'finished']]);
  });

  it('rescueComputeInstance: an offline instance boots into rescue mode; no body is accepted', async () => {
    const id = await runningInstance(t, { booted: false });
    expect((await t.post(`/v4/compute/instances/${id}/rescue`)).status).toBe(200);
    expect(await statusOf(t, id)).toBe('booting');
  });

  it('rescueComputeInstance: sdh is reserved; unknown disks and volumes are refused', async () => {
    const id = await runningInstance(t);
    const other = await runningInstance(t);
    const foreign = (await t.get(`/v4/compute/instances/${other}/disks`)).body.data[0].id;
    const sdh = await t.post(`/v4/compute/instances/${id}/rescue`, {
      devices: { sdh: { disk_id: 1 } },
    });
    expect(sdh.status).toBe(400);
    expect(sdh.body.errors[0].field).toBe('devices.sdh');
    const disk = await t.post(`/v4/compute/instances/${id}/rescue`, {
      devices: { sda: { disk_id: foreign } },
    });
    expect(disk.body.errors[0].field).toBe('devices.sda.disk_id');
    const vol = await t.post(`/v4/compute/instances/${id}/rescue`, {
      devices: { sdc: { volume_id: 999 } },
    });
    expect(vol.body.errors[0].field).toBe('devices.sdc.volume_id');
    expect(await statusOf(t, id)).toBe('running');
  });

  it('resetComputePassword: needs the instance shut down, then records password_reset', async () => {
    const id = await runningInstance(t);
    const running = await t.post(`/v4/compute/instances/${id}/password`, { root_pass: STRONG });
    expect(running.status).toBe(400);
    expect(running.body.errors[0].reason).toMatch(/shut down/);
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    await t.settle();
    const ok = await t.post(`/v4/compute/instances/${id}/password`, { root_pass: STRONG });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({});
    expect((await eventsOf(t, id)).at(-1)).toEqual(['password_reset', 'notification']);
  });

  it('resetComputePassword: strength-checked and required', async () => {
    const id = await runningInstance(t, { booted: false });
    const weak = await t.post(`/v4/compute/instances/${id}/password`, { root_pass: 'abcdefgh' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors).toEqual([
      { field: 'root_pass', reason: 'Password does not meet strength requirement' },
    ]);
    expect((await t.post(`/v4/compute/instances/${id}/password`, {})).status).toBe(400);
    expect((await eventsOf(t, id)).map((e) => e[0])).not.toContain('password_reset');
  });
});
