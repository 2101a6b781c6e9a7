import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  DEFAULT_HELPERS,
  emptyDevices,
  insertConfig,
} from '../../../src/modules/compute/compute.repository.js';

const STRONG = 's3cr3t-P4ssw0rd!';
const fromImage = {
  region: 'us-east',
  type: 'g6-nanode-1',
  image: 'compute/debian12',
  root_pass: STRONG,
};

describe('compute power actions', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const addConfig = (instanceId: number, label: string) =>
    insertConfig(
      t.ctx.db,
      {
        instanceId,
        accountId: t.admin.accountId,
        label,
        kernel: 'compute/latest-64bit',
        comments: null,
        memoryLimit: 0,
        runLevel: 'default',
        virtMode: 'paravirt',
        rootDevice: '/dev/sda',
        helpers: DEFAULT_HELPERS,
        devices: emptyDevices(),
      },
      '2026-03-01T12:00:00',
    );
  const status = async (id: number) => (await t.get(`/v4/compute/instances/${id}`)).body.status;
  const lastBooted = async (id: number) =>
    (
      await t.ctx.db.db
        .selectFrom('instances')
        .select('last_booted_config_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).last_booted_config_id;

  it('bootComputeInstance: boots the only config when none is given', async () => {
    const r = await t.post('/v4/compute/instances', { ...fromImage, booted: false });
    await t.settle();
    expect((await t.post(`/v4/compute/instances/${r.body.id}/boot`)).status).toBe(200);
    expect(await status(r.body.id)).toBe('booting');
    await t.settle();
    expect(await status(r.body.id)).toBe('running');
    const ev = await t.get('/v4/account/events', { filter: { action: 'compute_boot' } });
    expect(ev.body.data[0].status).toBe('finished');
  });

  it('bootComputeInstance: with several configs and none booted before, config_id is required', async () => {
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    await t.settle();
    await addConfig(r.body.id, 'one');
    const two = await addConfig(r.body.id, 'two');
    const none = await t.post(`/v4/compute/instances/${r.body.id}/boot`);
    expect(none.status).toBe(400);
    expect(none.body.errors[0].field).toBe('config_id');
    expect(
      (await t.post(`/v4/compute/instances/${r.body.id}/boot`, { config_id: two })).status,
    ).toBe(200);
    await t.settle();
    expect(await lastBooted(r.body.id)).toBe(two);
  });

  it('rebootComputeInstance: config_id null means the last booted config, for boot too', async () => {
    const r = await t.post('/v4/compute/instances', fromImage);
    await t.settle();
    const booted = await lastBooted(r.body.id);
    await addConfig(r.body.id, 'other');
    const bootNull = await t.post(`/v4/compute/instances/${r.body.id}/boot`, { config_id: null });
    expect(bootNull.status).toBe(400);
    expect(bootNull.body.errors[0].reason).toBe('Compute is already running.');
    expect(
      (await t.post(`/v4/compute/instances/${r.body.id}/reboot`, { config_id: null })).status,
    ).toBe(200);
    await t.settle();
    expect(await status(r.body.id)).toBe('running');
    expect(await lastBooted(r.body.id)).toBe(booted);
  });

  it('bootComputeInstance: an instance with no configs cannot boot', async () => {
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    await t.settle();
    const b = await t.post(`/v4/compute/instances/${r.body.id}/boot`);
    expect(b.status).toBe(400);
  });

  it('bootComputeInstance: a config of another instance is refused', async () => {
    const a = await t.post('/v4/compute/instances', { ...fromImage, booted: false });
    const b = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    await t.settle();
    const foreign = await addConfig(b.body.id, 'x');
    const r = await t.post(`/v4/compute/instances/${a.body.id}/boot`, { config_id: foreign });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('config_id');
  });

  it('rebootComputeInstance: uses the last booted config when none is given', async () => {
    const r = await t.post('/v4/compute/instances', fromImage);
    await t.settle();
    const first = await lastBooted(r.body.id);
    await addConfig(r.body.id, 'other');
    expect((await t.post(`/v4/compute/instances/${r.body.id}/reboot`)).status).toBe(200);
    expect(await status(r.body.id)).toBe('rebooting');
    await t.settle();
    expect(await status(r.body.id)).toBe('running');
    expect(await lastBooted(r.body.id)).toBe(first);
    const ev = await t.get('/v4/account/events', { filter: { action: 'compute_reboot' } });
    expect(ev.body.data[0].status).toBe('finished');
  });

  it('rebootComputeInstance: an offline instance is booted', async () => {
    const r = await t.post('/v4/compute/instances', { ...fromImage, booted: false });
    await t.settle();
    await t.post(`/v4/compute/instances/${r.body.id}/reboot`);
    expect(await status(r.body.id)).toBe('booting');
    await t.settle();
    expect(await status(r.body.id)).toBe('running');
  });

  it('bootComputeInstance: queued actions must finish first', async () => {
    const r = await t.post('/v4/compute/instances', fromImage);
    for (const action of ['boot', 'reboot', 'shutdown']) {
      const busy = await t.post(`/v4/compute/instances/${r.body.id}/${action}`);
      expect(busy.status, action).toBe(400);
      expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
    }
    await t.settle();
    expect((await t.post(`/v4/compute/instances/${r.body.id}/shutdown`)).status).toBe(200);
  });

  it('bootComputeInstance: waits for a disk job of the instance (Compute busy.)', async () => {
    const r = await t.post('/v4/compute/instances', {
      ...fromImage,
      type: 'g6-standard-2',
      booted: false,
      swap_size: 0,
    });
    await t.settle();
    await t.post(
      `/v4/compute/instances/${r.body.id}/disks/${(await t.get(`/v4/compute/instances/${r.body.id}/disks`)).body.data[0].id}/resize`,
      { size: 20000 },
    );
    const busy = await t.post(`/v4/compute/instances/${r.body.id}/boot`);
    expect(busy.status).toBe(400);
    expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
    await t.settle();
    expect((await t.post(`/v4/compute/instances/${r.body.id}/boot`)).status).toBe(200);
  });

  it('bootComputeInstance: a running instance cannot be booted again', async () => {
    const r = await t.post('/v4/compute/instances', fromImage);
    await t.settle();
    expect((await t.post(`/v4/compute/instances/${r.body.id}/boot`)).status).toBe(400);
  });

  it('shutdownComputeInstance: runs are recorded for statistics and billing', async () => {
    const r = await t.post('/v4/compute/instances', fromImage);
    await t.settle();
    t.clock.advance(3_600_000);
    await t.post(`/v4/compute/instances/${r.body.id}/shutdown`);
    await t.settle();
    const runs = await t.ctx.db.db
      .selectFrom('instance_runs')
      .selectAll()
      .where('instance_id', '=', r.body.id)
      .execute();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.stopped_ms! - runs[0]!.started_ms).toBeGreaterThanOrEqual(3_600_000);
  });

  it('createComputeInstance: event progress is visible to a poller under the realistic profile', async () => {
    t.ctx.timing.set('realistic');
    const r = await t.post('/v4/compute/instances', fromImage);
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const ev = await t.get('/v4/account/events', {
        filter: { 'entity.id': r.body.id, action: 'compute_create' },
      });
      seen.add(`${ev.body.data[0].status}:${ev.body.data[0].percent_complete}`);
      await t.runDue();
      t.clock.advance(5_000);
    }
    await t.runDue();
    expect([...seen]).toEqual(
      expect.arrayContaining(['scheduled:null', 'started:0', 'started:50', 'finished:100']),
    );
    expect(await status(r.body.id)).toBe('running');
  });
});
