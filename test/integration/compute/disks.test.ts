import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';
const KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx9Qd5bnJcLQ4Vz9kq3pJx9sKx1lmn0pQ2rS3tU4vW5 user@host';

describe('compute instance disks', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  /** An instance without disks (offline once provisioned). */
  const emptyInstance = async (type = 'g6-nanode-1') => {
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type });
    await t.settle();
    return r.body.id as number;
  };
  /** An image deployment: a boot disk and a 512 MB swap disk filling the plan, and a config. */
  const imageInstance = async (booted: boolean) => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted,
    });
    await t.settle();
    const id = r.body.id as number;
    const disks = (await t.get(`/v4/compute/instances/${id}/disks`)).body.data;
    const config = (await t.get(`/v4/compute/instances/${id}/configs`)).body.data[0];
    return { id, boot: disks[0], swap: disks[1], config };
  };
  const disksUrl = (id: number) => `/v4/compute/instances/${id}/disks`;
  const diskEvents = (id: number, action: string) =>
    t.get('/v4/account/events', {
      filter: { 'entity.id': id, action, '+order_by': 'id', '+order': 'asc' },
    });
  const emptyDisk = async (id: number, size = 1024, label = 'data') => {
    const r = await t.post(disksUrl(id), { size, label });
    expect(r.status).toBe(200);
    await t.settle();
    return r.body.id as number;
  };
  /** Shrinks the boot disk of an image deployment so that other disks fit. */
  const makeRoom = async (id: number, bootDiskId: number, size = 10000) => {
    expect((await t.post(`${disksUrl(id)}/${bootDiskId}/resize`, { size })).status).toBe(200);
    await t.settle();
  };

  it('getComputeDisks: the disks of an image deployment, paged and filterable on label', async () => {
    const { id, boot, swap } = await imageInstance(false);
    expect(boot).toMatchObject({
      label: 'Debian 12 Disk',
      status: 'ready',
      size: 25088,
      filesystem: 'ext4',
    });
    expect(boot.disk_encryption).toBe('disabled');
    expect(Object.keys(boot).sort()).toEqual([
      'created',
      'disk_encryption',
      'filesystem',
      'id',
      'label',
      'size',
      'status',
      'updated',
    ]);
    expect(swap).toMatchObject({ label: '512 MB Swap Image', size: 512, filesystem: 'swap' });
    const list = await t.get(disksUrl(id), { filter: { label: '512 MB Swap Image' } });
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1 });
    expect(list.body.data[0].id).toBe(swap.id);
    expect((await t.get(`${disksUrl(id)}/${boot.id}`)).body).toEqual(boot);
  });

  it('addComputeDisk: an empty disk is not ready until its disk_create job finishes', async () => {
    const id = await emptyInstance();
    const r = await t.post(disksUrl(id), { size: 2048, label: 'data' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'data',
      size: 2048,
      filesystem: 'ext4',
      status: 'not ready',
    });
    const scheduled = await diskEvents(id, 'disk_create');
    expect(scheduled.body.data[0]).toMatchObject({
      status: 'scheduled',
      entity: { type: 'compute', id, url: `/v4/compute/instances/${id}` },
      secondary_entity: {
        type: 'disk',
        id: r.body.id,
        label: 'data',
        url: `/v4/compute/instances/${id}/disks/${r.body.id}`,
      },
    });
    await t.runDue();
    expect((await diskEvents(id, 'disk_create')).body.data[0]).toMatchObject({
      status: 'started',
      percent_complete: 0,
    });
    await t.settle();
    expect((await t.get(`${disksUrl(id)}/${r.body.id}`)).body.status).toBe('ready');
    expect((await diskEvents(id, 'disk_create')).body.data[0]).toMatchObject({
      status: 'finished',
      percent_complete: 100,
    });
  });

  it('addComputeDisk: an empty disk needs a label; size at least 1; filesystem as asked', async () => {
    const id = await emptyInstance();
    const noLabel = await t.post(disksUrl(id), { size: 100 });
    expect(noLabel.status).toBe(400);
    expect(noLabel.body.errors).toContainEqual({
      field: 'label',
      reason: 'label is required for an empty disk',
    });
    const zero = await t.post(disksUrl(id), { size: 0, label: 'x' });
    expect(zero.status).toBe(400);
    expect(zero.body.errors[0].field).toBe('size');
    const long = await t.post(disksUrl(id), { size: 10, label: 'x'.repeat(49) });
    expect(long.body.errors[0].field).toBe('label');
    const badFs = await t.post(disksUrl(id), { size: 10, label: 'x', filesystem: 'ntfs' });
    expect(badFs.body.errors[0].field).toBe('filesystem');
    const swap = await t.post(disksUrl(id), { size: 256, label: 'swap', filesystem: 'swap' });
    expect(swap.body.filesystem).toBe('swap');
  });

  it('addComputeDisk: from an image: root_pass required and strong, at least the image minimum, the image filesystem', async () => {
    const id = await emptyInstance();
    const noPass = await t.post(disksUrl(id), { size: 2000, image: 'compute/debian12' });
    expect(noPass.body.errors).toContainEqual({
      field: 'root_pass',
      reason: 'root_pass is required when deploying from an image',
    });
    const weak = await t.post(disksUrl(id), {
      size: 2000,
      image: 'compute/debian12',
      root_pass: 'password1',
    });
    expect(weak.body.errors).toContainEqual({
      field: 'root_pass',
      reason: 'Password does not meet strength requirement',
    });
    const small = await t.post(disksUrl(id), {
      size: 1299,
      image: 'compute/debian12',
      root_pass: STRONG,
    });
    expect(small.body.errors).toContainEqual({
      field: 'size',
      reason: 'The image needs a disk of at least 1300 MB',
    });
    const unknown = await t.post(disksUrl(id), {
      size: 2000,
      image: 'compute/nope',
      root_pass: STRONG,
    });
    expect(unknown.body.errors).toContainEqual({ field: 'image', reason: 'image is not valid' });
    const ok = await t.post(disksUrl(id), {
      size: 1300,
      image: 'compute/debian12',
      root_pass: STRONG,
      authorized_keys: [KEY],
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ label: 'Debian 12 Disk', filesystem: 'ext4', size: 1300 });
  });

  it('addComputeDisk: authorized_keys need an image; StackScripts are checked as on instance create', async () => {
    const id = await emptyInstance();
    const keys = await t.post(disksUrl(id), { size: 100, label: 'x', authorized_keys: [KEY] });
    expect(keys.body.errors).toContainEqual({
      field: 'authorized_keys',
      reason: 'authorized_keys and authorized_users need an image',
    });
    const badKey = await t.post(disksUrl(id), {
      size: 2000,
      image: 'compute/debian12',
      root_pass: STRONG,
      authorized_keys: ['nope'],
    });
    expect(badKey.body.errors[0].field).toBe('authorized_keys.0');
    const users = await t.post(disksUrl(id), {
      size: 2000,
      image: 'compute/debian12',
      root_pass: STRONG,
      authorized_users: ['ghost'],
    });
    expect(users.body.errors[0].field).toBe('authorized_users.0');
    const script = await t.post(disksUrl(id), {
      size: 2000,
      image: 'compute/debian12',
      root_pass: STRONG,
      stackscript_id: 10,
    });
    expect(script.body.errors).toContainEqual({
      field: 'stackscript_id',
      reason: 'StackScript not found',
    });
    const data = await t.post(disksUrl(id), {
      size: 2000,
      image: 'compute/debian12',
      root_pass: STRONG,
      stackscript_data: { a: 1 },
    });
    expect(data.body.errors).toContainEqual({
      field: 'stackscript_data',
      reason: 'stackscript_data needs a stackscript_id',
    });
    const rootPass = await t.post(disksUrl(id), { size: 100, label: 'x', root_pass: STRONG });
    expect(rootPass.body.errors[0].field).toBe('root_pass');
  });

  it('addComputeDisk: the disks must fit in the plan storage', async () => {
    const id = await emptyInstance();
    await emptyDisk(id, 25000);
    const over = await t.post(disksUrl(id), { size: 601, label: 'more' });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].field).toBe('size');
    expect((await t.post(disksUrl(id), { size: 600, label: 'more' })).status).toBe(200);
  });

  it('addComputeDisk: Compute busy while the instance is provisioning', async () => {
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    const busy = await t.post(disksUrl(r.body.id), { size: 100, label: 'x' });
    expect(busy.status).toBe(400);
    expect(busy.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it('cloneComputeDisk: Compute busy (as resize, delete and password reset) while the instance boots', async () => {
    const { id, boot, swap } = await imageInstance(false);
    await t.post(`/v4/compute/instances/${id}/boot`);
    const busy = { errors: [{ reason: 'Compute busy.' }] };
    expect((await t.post(`${disksUrl(id)}/${swap.id}/clone`)).body).toEqual(busy);
    expect((await t.post(`${disksUrl(id)}/${boot.id}/resize`, { size: 5000 })).body).toEqual(busy);
    expect((await t.del(`${disksUrl(id)}/${swap.id}`)).body).toEqual(busy);
    expect(
      (await t.post(`${disksUrl(id)}/${boot.id}/password`, { password: STRONG })).body,
    ).toEqual(busy);
  });

  it('updateDisk: relabels with a disk_update notification; label 1..48', async () => {
    const id = await emptyInstance();
    const disk = await emptyDisk(id);
    const r = await t.put(`${disksUrl(id)}/${disk}`, { label: 'renamed' });
    expect(r.status).toBe(200);
    expect(r.body.label).toBe('renamed');
    const ev = await diskEvents(id, 'disk_update');
    expect(ev.body.data[0]).toMatchObject({
      status: 'notification',
      secondary_entity: { id: disk, label: 'renamed' },
    });
    expect((await t.put(`${disksUrl(id)}/${disk}`, { label: '' })).body.errors[0].field).toBe(
      'label',
    );
  });

  it('deleteDisk: deleting, then gone, and out of every config', async () => {
    const id = await emptyInstance();
    const disk = await emptyDisk(id);
    const other = await emptyDisk(id, 100, 'other');
    const cfg = await t.post(`/v4/compute/instances/${id}/configs`, {
      label: 'c',
      devices: { sda: { disk_id: disk }, sdb: { disk_id: other } },
    });
    expect((await t.del(`${disksUrl(id)}/${disk}`)).body).toEqual({});
    expect((await t.get(`${disksUrl(id)}/${disk}`)).body.status).toBe('deleting');
    const after = await t.get(`/v4/compute/instances/${id}/configs/${cfg.body.id}`);
    expect(after.body.devices.sda).toBeNull();
    expect(after.body.devices.sdb).toEqual({ disk_id: other, volume_id: null });
    await t.settle();
    expect((await t.get(`${disksUrl(id)}/${disk}`)).status).toBe(404);
    const ev = await diskEvents(id, 'disk_delete');
    expect(ev.body.data[0]).toMatchObject({
      status: 'finished',
      secondary_entity: { type: 'disk', id: disk },
    });
  });

  it('deleteDisk: refused for a disk of the config the running instance booted', async () => {
    const { id, boot, swap } = await imageInstance(true);
    await t.settle();
    const refused = await t.del(`${disksUrl(id)}/${swap.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/in use/);
    // Off, the same disk can go.
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    await t.settle();
    expect((await t.del(`${disksUrl(id)}/${swap.id}`)).status).toBe(200);
    expect(boot.status).toBe('ready');
  });

  it('deleteDisk: a disk outside the booted config can be resized and deleted while the instance runs', async () => {
    const { id, boot } = await imageInstance(false);
    await makeRoom(id, boot.id);
    const extra = await emptyDisk(id);
    await t.post(`/v4/compute/instances/${id}/boot`);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${id}`)).body.status).toBe('running');
    expect((await t.post(`${disksUrl(id)}/${extra}/resize`, { size: 2048 })).status).toBe(200);
    await t.settle();
    expect((await t.get(`${disksUrl(id)}/${extra}`)).body).toMatchObject({
      status: 'ready',
      size: 2048,
    });
    expect((await t.del(`${disksUrl(id)}/${extra}`)).status).toBe(200);
  });

  it('cloneComputeDisk: a copy of the same size; the source is busy until the disk_duplicate job ends', async () => {
    const id = await emptyInstance();
    const disk = await emptyDisk(id, 4096, 'data');
    const r = await t.post(`${disksUrl(id)}/${disk}/clone`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'Copy of data',
      size: 4096,
      filesystem: 'ext4',
      status: 'not ready',
    });
    const busy = await t.post(`${disksUrl(id)}/${disk}/resize`, { size: 5000 });
    expect(busy.body).toEqual({ errors: [{ reason: 'Disk busy.' }] });
    const copyBusy = await t.del(`${disksUrl(id)}/${r.body.id}`);
    expect(copyBusy.body).toEqual({ errors: [{ reason: 'Disk busy.' }] });
    await t.settle();
    expect((await t.get(`${disksUrl(id)}/${r.body.id}`)).body.status).toBe('ready');
    const ev = await diskEvents(id, 'disk_duplicate');
    expect(ev.body.data[0]).toMatchObject({
      status: 'finished',
      secondary_entity: { id: r.body.id },
    });
  });

  it('cloneComputeDisk: needs free storage for a disk of the same size', async () => {
    const id = await emptyInstance();
    const disk = await emptyDisk(id, 13000);
    const r = await t.post(`${disksUrl(id)}/${disk}/clone`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/Not enough free space/);
  });

  it('resizeDisk: on an offline instance the size changes when the disk_resize job finishes', async () => {
    const { id, boot } = await imageInstance(false);
    expect((await t.post(`${disksUrl(id)}/${boot.id}/resize`, { size: 10000 })).body).toEqual({});
    expect((await t.get(`${disksUrl(id)}/${boot.id}`)).body).toMatchObject({
      status: 'not ready',
      size: 25088,
    });
    await t.settle();
    expect((await t.get(`${disksUrl(id)}/${boot.id}`)).body).toMatchObject({
      status: 'ready',
      size: 10000,
    });
    expect((await diskEvents(id, 'disk_resize')).body.data[0]).toMatchObject({
      status: 'finished',
      percent_complete: 100,
    });
  });

  it('resizeDisk: a disk in use by the running instance: accepted, then the job fails and the disk is left as it was', async () => {
    const { id, boot } = await imageInstance(true);
    const r = await t.post(`${disksUrl(id)}/${boot.id}/resize`, { size: 10000 });
    expect(r.status).toBe(200);
    await t.settle();
    const ev = await diskEvents(id, 'disk_resize');
    expect(ev.body.data[0].status).toBe('failed');
    expect(ev.body.data[0].message).toMatch(/in use/);
    expect((await t.get(`${disksUrl(id)}/${boot.id}`)).body).toMatchObject({
      status: 'ready',
      size: 25088,
    });
  });

  it('resizeDisk: not below the data on the disk, not beyond the free storage', async () => {
    const { id, boot } = await imageInstance(false);
    const shrink = await t.post(`${disksUrl(id)}/${boot.id}/resize`, { size: 1299 });
    expect(shrink.status).toBe(400);
    expect(shrink.body.errors[0]).toMatchObject({ field: 'size' });
    expect(shrink.body.errors[0].reason).toMatch(/1300 MB/);
    const grow = await t.post(`${disksUrl(id)}/${boot.id}/resize`, { size: 25089 });
    expect(grow.status).toBe(400);
    expect(grow.body.errors[0].field).toBe('size');
    expect((await t.post(`${disksUrl(id)}/${boot.id}/resize`, { size: 1300 })).status).toBe(200);
  });

  it('resetDiskPassword: strength-checked, the instance shut down, a password_reset event', async () => {
    const { id, boot, swap } = await imageInstance(true);
    const url = `${disksUrl(id)}/${boot.id}/password`;
    const weak = await t.post(url, { password: 'password1' });
    expect(weak.body.errors).toEqual([
      { field: 'password', reason: 'Password does not meet strength requirement' },
    ]);
    const running = await t.post(url, { password: STRONG });
    expect(running.status).toBe(400);
    expect(running.body.errors[0].reason).toMatch(/shut down/);
    await t.post(`/v4/compute/instances/${id}/shutdown`);
    await t.settle();
    expect((await t.post(url, { password: STRONG })).body).toEqual({});
    expect((await diskEvents(id, 'password_reset')).body.data[0]).toMatchObject({
      status: 'notification',
      secondary_entity: { id: boot.id },
    });
    const onSwap = await t.post(`${disksUrl(id)}/${swap.id}/password`, { password: STRONG });
    expect(onSwap.status).toBe(400);
  });

  it('getComputeDisk: a disk of another instance is not found; a read_only user cannot change disks', async () => {
    const a = await emptyInstance();
    const b = await emptyInstance();
    const disk = await emptyDisk(a);
    expect((await t.get(`${disksUrl(b)}/${disk}`)).status).toBe(404);
    const ro = await createTestUser(t, {
      grants: [{ type: 'compute', id: a, permissions: 'read_only' }],
    });
    expect((await t.get(`${disksUrl(a)}/${disk}`, { token: ro.token })).status).toBe(200);
    expect(
      (await t.put(`${disksUrl(a)}/${disk}`, { label: 'x' }, { token: ro.token })).status,
    ).toBe(403);
    expect((await t.post(disksUrl(a), { size: 10, label: 'x' }, { token: ro.token })).status).toBe(
      403,
    );
    expect((await t.get(disksUrl(b), { token: ro.token })).status).toBe(404);
  });
});
