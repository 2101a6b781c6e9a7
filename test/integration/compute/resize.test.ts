import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { eventsOf, runningInstance, statusOf, stepThrough } from './ops-helpers.js';

describe('compute resize and mutate', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const bootDisk = async (id: number) =>
    (await t.get(`/v4/compute/instances/${id}/disks`)).body.data.find(
      (d: any) => d.filesystem !== 'swap',
    );

  it('resizeComputeInstance: cold resize of a running instance shows resizing, boots and grows the disk', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect(await statusOf(t, id)).toBe('resizing');
    const seen = await stepThrough(t, id, 2000, 40);
    expect(seen).toEqual(['resizing', 'booting', 'running']);
    const inst = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(inst.type).toBe('g6-standard-2');
    expect(inst.specs.disk).toBe(81920);
    expect((await bootDisk(id)).size).toBe(81920 - 512);
    expect(await eventsOf(t, id)).toEqual([
      ['compute_create', 'finished'],
      ['compute_boot', 'finished'],
      ['compute_resize_create', 'notification'],
      ['compute_resize', 'finished'],
      ['compute_boot', 'finished'],
    ]);
  });

  it('resizeComputeInstance: compute_resize reports a rising percent_complete', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    const pct: (number | null)[] = [];
    for (let i = 0; i < 12; i++) {
      await t.runDue();
      // A poller reads the instance too (`resizing` holds until read).
      await t.get(`/v4/compute/instances/${id}`);
      const ev = await t.get('/v4/account/events', {
        filter: { 'entity.id': id, action: 'compute_resize' },
      });
      // The event appears when the work starts, after the first read (op-events.test.ts).
      pct.push(ev.body.data[0]?.percent_complete ?? null);
      t.clock.set(t.clock.nowMs() + 2250);
    }
    const distinct = [...new Set(pct.filter((x) => x !== null))];
    expect(distinct).toEqual([0, 25, 50, 75, 100]);
  });

  it('resizeComputeInstance: warm resize keeps the instance running without a boot', async () => {
    const id = await runningInstance(t);
    await t.post(`/v4/compute/instances/${id}/resize`, {
      type: 'g6-standard-2',
      migration_type: 'warm',
    });
    expect(await stepThrough(t, id, 2000, 40)).toEqual(['migrating', 'running']);
    const actions = (await eventsOf(t, id)).map((e) => e[0]);
    expect(actions.filter((a) => a === 'compute_boot')).toHaveLength(1);
  });

  it('resizeComputeInstance: an offline instance stays offline', async () => {
    const id = await runningInstance(t, { booted: false });
    await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    await t.settle();
    expect(await statusOf(t, id)).toBe('offline');
    expect((await t.get(`/v4/compute/instances/${id}`)).body.type).toBe('g6-standard-2');
  });

  it('resizeComputeInstance: refuses an unknown type, the same type and a missing type', async () => {
    const id = await runningInstance(t);
    const bad = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('type');
    const same = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-1' });
    expect(same.status).toBe(400);
    expect((await t.post(`/v4/compute/instances/${id}/resize`, {})).status).toBe(400);
    expect(await statusOf(t, id)).toBe('running');
  });

  it('resizeComputeInstance: refuses disks that do not fit the new type', async () => {
    const id = await runningInstance(t);
    // Without the automatic resize the 50 GB of disks cannot fit a 25 GB plan.
    const r = await t.post(`/v4/compute/instances/${id}/resize`, {
      type: 'g6-nanode-1',
      allow_auto_disk_resize: false,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/do not fit/);
    // With it, the boot disk shrinks to fit (its data is small).
    const ok = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-nanode-1' });
    expect(ok.status).toBe(200);
    await t.settle();
    expect((await bootDisk(id)).size).toBe(25600 - 512);
  });

  it('resizeComputeInstance: refuses with an outstanding balance', async () => {
    const id = await runningInstance(t);
    await t.ctx.db.db.updateTable('accounts').set({ balance_cents: 1500 }).execute();
    const r = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/outstanding balance/);
  });

  it('resizeComputeInstance: refuses with a pending migration, and while busy', async () => {
    const id = await runningInstance(t);
    expect((await t.post(`/v4/compute/instances/${id}/migrate`)).status).toBe(200);
    const r = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/migration pending/);
    await t.settle();
    await t.post(`/v4/compute/instances/${id}/reboot`);
    const busy = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-2' });
    expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it('mutateComputeInstance: upgrades to the successor and restarts a running instance', async () => {
    const id = await runningInstance(t, { type: 'g5-standard-1' });
    const r = await t.post(`/v4/compute/instances/${id}/mutate`);
    expect(r.status).toBe(200);
    expect(await stepThrough(t, id, 2000, 40)).toEqual(['resizing', 'booting', 'running']);
    const inst = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(inst.type).toBe('g6-standard-1');
    expect((await bootDisk(id)).size).toBe(51200 - 512);
    expect((await eventsOf(t, id)).slice(2)).toEqual([
      ['compute_mutate_create', 'notification'],
      ['compute_mutate', 'finished'],
      ['compute_boot', 'finished'],
    ]);
  });

  it('mutateComputeInstance: allow_auto_disk_resize false keeps the disks as they are', async () => {
    const id = await runningInstance(t, { type: 'g5-standard-1' });
    await t.post(`/v4/compute/instances/${id}/mutate`, { allow_auto_disk_resize: false });
    await t.settle();
    expect((await bootDisk(id)).size).toBe(30720 - 512);
  });

  it('mutateComputeInstance: refused without a successor, and while actions are queued', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`/v4/compute/instances/${id}/mutate`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/no upgrade/);
    const old = await runningInstance(t, { type: 'g5-nanode-1' });
    await t.post(`/v4/compute/instances/${old}/shutdown`);
    const busy = await t.post(`/v4/compute/instances/${old}/mutate`);
    expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it("resizeComputeInstance: refused when the attached volumes exceed the new type's limit", async () => {
    const id = await runningInstance(t, { type: 'g6-standard-1', booted: false });
    for (const label of ['v-1', 'v-2']) {
      const v = await t.post('/v4/volumes', { label, compute_id: id, size: 20 });
      expect(v.status).toBe(200);
    }
    await t.settle();
    // A nanode has 1 GB of RAM: one volume at most.
    const r = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-nanode-1' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/at most 1 attached volumes/);
  });

  it('resizeComputeInstance: needs read_write on the instance; another account sees a 404', async () => {
    const id = await runningInstance(t);
    const ro = await createTestUser(t, {
      grants: [{ type: 'compute', id, permissions: 'read_only' }],
    });
    const r = await t.post(
      `/v4/compute/instances/${id}/resize`,
      { type: 'g6-standard-2' },
      { token: ro.token },
    );
    expect(r.status).toBe(403);
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'other',
    });
    const r2 = await t.post(`/v4/compute/instances/${id}/mutate`, undefined, {
      token: other.token,
    });
    expect(r2.status).toBe(404);
    expect(await statusOf(t, id)).toBe('running');
  });
});
