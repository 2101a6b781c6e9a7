import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventsOf, runningInstance, statusOf } from './ops-helpers.js';

const HOUR = 3_600_000;

describe('compute backups', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const base = (id: number) => `/v4/compute/instances/${id}/backups`;
  const withBackups = async (extra: Record<string, unknown> = {}) => {
    const id = await runningInstance(t, extra);
    expect((await t.post(`${base(id)}/enable`)).status).toBe(200);
    return id;
  };
  const snapshot = async (id: number, label = 'snap-1') => {
    const r = await t.post(base(id), { label });
    expect(r.status).toBe(200);
    await t.settle();
    return r.body.id as number;
  };

  it('enableBackups: turns the add-on on with the schedule Scheduling, then picks a schedule', async () => {
    const id = await runningInstance(t);
    const r = await t.post(`${base(id)}/enable`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    const inst = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(inst.backups.enabled).toBe(true);
    expect(inst.backups.schedule).toEqual({ day: 'Scheduling', window: 'Scheduling' });
    expect((await eventsOf(t, id)).at(-1)).toEqual(['backups_enable', 'notification']);
    t.clock.set(t.clock.nowMs() + HOUR);
    await t.runDue();
    const later = (await t.get(`/v4/compute/instances/${id}`)).body.backups.schedule;
    expect(later.day).toMatch(/day$/);
    expect(later.window).toMatch(/^W\d+$/);
  });

  it('getBackups: the reference shape, empty at first', async () => {
    const id = await withBackups();
    expect((await t.get(base(id))).body).toEqual({
      automatic: [],
      snapshot: { in_progress: null, current: null },
    });
  });

  it('createSnapshot: shows in_progress while taken, then current; compute_snapshot finishes', async () => {
    const id = await withBackups();
    const r = await t.post(base(id), { label: 'before-upgrade' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ type: 'snapshot', status: 'pending', label: 'before-upgrade' });
    expect(r.body.disks.map((d: any) => d.filesystem)).toEqual(['ext4', 'swap']);
    expect(r.body.configs).toHaveLength(1);
    let list = (await t.get(base(id))).body;
    expect(list.snapshot.in_progress.id).toBe(r.body.id);
    expect(list.snapshot.current).toBeNull();
    const again = await t.post(base(id), { label: 'twice' });
    expect(again.status).toBe(400);
    await t.settle();
    list = (await t.get(base(id))).body;
    expect(list.snapshot.in_progress).toBeNull();
    expect(list.snapshot.current).toMatchObject({
      id: r.body.id,
      status: 'successful',
      available: true,
    });
    expect(list.snapshot.current.finished).not.toBeNull();
    const one = await t.get(`${base(id)}/${r.body.id}`);
    expect(one.body.id).toBe(r.body.id);
    expect((await eventsOf(t, id)).at(-1)).toEqual(['compute_snapshot', 'finished']);
    const inst = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(inst.backups.last_successful).toBe(list.snapshot.current.finished);
  });

  it('createSnapshot: a new snapshot deletes the previous one', async () => {
    const id = await withBackups();
    const first = await snapshot(id, 'one');
    const second = await snapshot(id, 'two');
    expect((await t.get(base(id))).body.snapshot.current.id).toBe(second);
    expect((await t.get(`${base(id)}/${first}`)).status).toBe(404);
  });

  it('createSnapshot: needs backups enabled and a label of 1..255', async () => {
    const id = await runningInstance(t);
    const off = await t.post(base(id), { label: 'x' });
    expect(off.status).toBe(400);
    expect(off.body.errors[0].reason).toMatch(/not enabled/);
    await t.post(`${base(id)}/enable`);
    expect((await t.post(base(id), {})).status).toBe(400);
    expect((await t.post(base(id), { label: '' })).status).toBe(400);
    expect((await t.post(base(id), { label: 'a'.repeat(256) })).status).toBe(400);
    expect((await t.post(base(id), { label: 'a'.repeat(255) })).status).toBe(200);
  });

  it('cancelBackups: deletes every backup and turns the add-on off', async () => {
    const id = await withBackups();
    const snap = await snapshot(id);
    const r = await t.post(`${base(id)}/cancel`);
    expect(r.status).toBe(200);
    expect((await t.get(`${base(id)}/${snap}`)).status).toBe(404);
    const inst = (await t.get(`/v4/compute/instances/${id}`)).body;
    expect(inst.backups.enabled).toBe(false);
    expect((await eventsOf(t, id)).at(-1)).toEqual(['backups_cancel', 'notification']);
    expect((await t.post(`${base(id)}/cancel`)).status).toBe(400);
    const rows = await t.ctx.db.db.selectFrom('backups').selectAll().execute();
    expect(rows).toHaveLength(0);
  });

  it('automatic backups: taken in the schedule window through the job clock, in daily, weekly and biweekly slots', async () => {
    // 2026-03-01 is a Sunday; the window is Monday 02:00-04:00 UTC.
    const id = await withBackups();
    const put = await t.put(`/v4/compute/instances/${id}`, {
      backups: { schedule: { day: 'Monday', window: 'W2' } },
    });
    expect(put.status).toBe(200);
    await t.runDue();
    expect((await t.get(base(id))).body.automatic).toHaveLength(0);
    const at = async (iso: string) => {
      t.clock.set(iso);
      await t.runDue();
      await t.settle();
      return (await t.get(base(id))).body.automatic as any[];
    };
    // Not before the window.
    expect(await at('2026-03-02T01:59:00Z')).toHaveLength(0);
    let auto = await at('2026-03-02T02:00:00Z');
    expect(auto).toHaveLength(1);
    expect(auto[0]).toMatchObject({ type: 'auto', status: 'successful', available: true });
    const weekly = auto[0].id;
    auto = await at('2026-03-03T02:00:00Z');
    expect(auto).toHaveLength(2);
    auto = await at('2026-03-04T02:00:00Z');
    expect(auto).toHaveLength(2);
    // The next Monday: the new weekly one; last week's becomes the biweekly one.
    auto = await at('2026-03-09T02:00:00Z');
    expect(auto.map((b) => b.id)).toContain(weekly);
    expect(auto).toHaveLength(2);
    auto = await at('2026-03-10T02:00:00Z');
    expect(auto).toHaveLength(3);
    auto = await at('2026-03-16T02:00:00Z');
    expect(auto.map((b) => b.id)).not.toContain(weekly);
    const slots = await t.ctx.db.db.selectFrom('backups').select('slot').orderBy('id').execute();
    expect(slots.map((s) => s.slot).sort()).toEqual(['biweekly', 'weekly']);
  });

  it('automatic backups: stop when backups are cancelled', async () => {
    const id = await withBackups();
    await t.put(`/v4/compute/instances/${id}`, {
      backups: { schedule: { day: 'Monday', window: 'W2' } },
    });
    await t.runDue();
    await t.post(`${base(id)}/cancel`);
    t.clock.set('2026-03-02T02:00:00Z');
    await t.runDue();
    await t.settle();
    expect((await t.get(base(id))).body.automatic).toHaveLength(0);
  });

  it('restoreBackup: overwrite false with too little space is an error stating insufficient space', async () => {
    const id = await withBackups();
    const snap = await snapshot(id);
    const r = await t.post(`${base(id)}/${snap}/restore`, { compute_id: id, overwrite: false });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/Insufficient space/);
    expect(await statusOf(t, id)).toBe('running');
  });

  it('restoreBackup: overwrite true replaces the target disks and configs; restoring, then booted', async () => {
    const id = await withBackups();
    const snap = await snapshot(id);
    const target = await runningInstance(t);
    const old = (await t.get(`/v4/compute/instances/${target}/disks`)).body.data;
    const r = await t.post(`${base(id)}/${snap}/restore`, { compute_id: target, overwrite: true });
    expect(r.status).toBe(200);
    expect(await statusOf(t, target)).toBe('restoring');
    const del = await t.del(`/v4/compute/instances/${target}`);
    expect(del.status).toBe(400);
    expect(del.body.errors[0].reason).toMatch(/restoring/);
    await t.settle();
    expect(await statusOf(t, target)).toBe('running');
    const disks = (await t.get(`/v4/compute/instances/${target}/disks`)).body.data;
    expect(disks).toHaveLength(2);
    expect(disks.some((d: any) => old.some((o: any) => o.id === d.id))).toBe(false);
    expect((await eventsOf(t, target)).slice(2)).toEqual([
      ['backups_restore', 'finished'],
      ['compute_boot', 'finished'],
    ]);
  });

  it('restoreBackup: overwrite false onto a target with room adds the disks', async () => {
    const id = await withBackups({ type: 'g6-nanode-1' });
    const snap = await snapshot(id);
    const target = (
      await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-standard-1' })
    ).body.id;
    await t.settle();
    expect((await t.post(`${base(id)}/${snap}/restore`, { compute_id: target })).status).toBe(200);
    await t.settle();
    expect(await statusOf(t, target)).toBe('offline');
    expect((await t.get(`/v4/compute/instances/${target}/disks`)).body.data).toHaveLength(2);
  });

  it('restoreBackup: refused for another region, an unfinished backup and a busy target', async () => {
    const id = await withBackups();
    const target = await runningInstance(t, { region: 'us-central' });
    const taking = await t.post(base(id), { label: 'x' });
    const early = await t.post(`${base(id)}/${taking.body.id}/restore`, {
      compute_id: id,
      overwrite: true,
    });
    expect(early.status).toBe(400);
    await t.settle();
    const other = await t.post(`${base(id)}/${taking.body.id}/restore`, {
      compute_id: target,
      overwrite: true,
    });
    expect(other.status).toBe(400);
    expect(other.body.errors[0].field).toBe('compute_id');
    await t.post(`/v4/compute/instances/${id}/reboot`);
    const busy = await t.post(`${base(id)}/${taking.body.id}/restore`, {
      compute_id: id,
      overwrite: true,
    });
    expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it('createComputeInstance: from backup_id, with the disks and configs of the backup, booted', async () => {
    const id = await withBackups();
    const snap = await snapshot(id);
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-standard-1',
      backup_id: snap,
    });
    expect(r.status).toBe(200);
    expect(r.body.image).toBe('compute/debian12');
    await t.settle();
    expect(await statusOf(t, r.body.id)).toBe('running');
    const src = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    const disks = (await t.get(`/v4/compute/instances/${r.body.id}/disks`)).body.data;
    expect(disks.map((d: any) => [d.label, d.size, d.filesystem])).toEqual(
      src.map((d: any) => [d.label, d.size, d.filesystem]),
    );
    const cfg = (await t.get(`/v4/compute/instances/${r.body.id}/configs`)).body.data;
    expect(cfg[0].devices.sda.disk_id).toBe(disks[0].id);
  });

  it('createComputeInstance: backup_id must be successful, in the region, and fit the type', async () => {
    const id = await withBackups();
    const taking = await t.post(base(id), { label: 'x' });
    const create = (b: Record<string, unknown>) =>
      t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-standard-1', ...b });
    const pending = await create({ backup_id: taking.body.id });
    expect(pending.body.errors[0].field).toBe('backup_id');
    await t.settle();
    const region = await create({ backup_id: taking.body.id, region: 'us-central' });
    expect(region.body.errors[0].field).toBe('backup_id');
    const small = await create({ backup_id: taking.body.id, type: 'g6-nanode-1' });
    expect(small.body.errors[0].field).toBe('type');
    const both = await create({ backup_id: taking.body.id, image: 'compute/debian12' });
    expect(both.status).toBe(400);
    expect((await create({ backup_id: 999999 })).body.errors[0].field).toBe('backup_id');
  });

  it('deleteComputeInstance: deletes the instance backups', async () => {
    const id = await withBackups();
    await snapshot(id);
    await t.del(`/v4/compute/instances/${id}`);
    await t.settle();
    expect(await t.ctx.db.db.selectFrom('backups').selectAll().execute()).toHaveLength(0);
  });
});
