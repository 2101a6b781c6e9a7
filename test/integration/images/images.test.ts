import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageStorageMb } from '../../../src/modules/images/images.repository.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { capturedImage, diskToCapture, imageEvents, STRONG } from './fixtures.js';

describe('private images', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createImage: captures a disk: creating, then available, with the disk_imagize event', async () => {
    const { computeId, diskId } = await diskToCapture(t, 2000);
    const r = await t.post('/v4/images', {
      disk_id: diskId,
      description: 'gold',
      cloud_init: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'golden',
      description: 'gold',
      status: 'creating',
      size: 2000,
      is_public: false,
      deprecated: false,
      type: 'manual',
      vendor: null,
      expiry: null,
      eol: null,
      created_by: 'owner',
      capabilities: ['cloud-init'],
      tags: [],
    });
    expect(r.body.id).toMatch(/^private\/[0-9]+$/);
    const n = Number(r.body.id.split('/')[1]);
    const events = async () =>
      (await t.get('/v4/account/events', { filter: { action: 'disk_imagize' } })).body.data;
    expect(await events()).toMatchObject([
      {
        status: 'scheduled',
        entity: { type: 'compute', id: computeId },
        secondary_entity: { type: 'image', id: n, label: 'golden', url: `/v4/images/${r.body.id}` },
      },
    ]);
    // The disk is busy while it is captured.
    const again = await t.post('/v4/images', { disk_id: diskId });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].reason).toBe('Disk busy.');
    await t.settle();
    expect((await events())[0]).toMatchObject({ status: 'finished', percent_complete: 100 });
    const view = await t.get(`/v4/images/${r.body.id}`);
    expect(view.body).toMatchObject({ id: r.body.id, status: 'available', size: 2000 });
    // The id's slash may also come encoded.
    expect((await t.get(`/v4/images/private%2F${n}`)).body.id).toBe(r.body.id);
  });

  it('createImage: the instance deleted before the capture ends: the image is removed and the event failed', async () => {
    const { computeId, diskId } = await diskToCapture(t);
    const r = await t.post('/v4/images', { disk_id: diskId });
    expect((await t.del(`/v4/compute/instances/${computeId}`)).status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/images/${r.body.id}`)).status).toBe(404);
    const events = await t.get('/v4/account/events', { filter: { action: 'disk_imagize' } });
    expect(events.body.data[0]).toMatchObject({ status: 'failed' });
  });

  it('createImage: the disk must be a non-swap disk of the account; label and tags are checked', async () => {
    const other = await secondAccount(t);
    const { diskId } = await diskToCapture(t);
    const theirs = await t.post('/v4/images', { disk_id: diskId }, { token: other.token });
    expect(theirs.status).toBe(400);
    expect(theirs.body.errors).toEqual([{ field: 'disk_id', reason: 'Disk not found' }]);
    const img = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
    });
    await t.settle();
    const disks = (await t.get(`/v4/compute/instances/${img.body.id}/disks`)).body.data;
    const swap = disks.find((d: { filesystem: string }) => d.filesystem === 'swap');
    const r = await t.post('/v4/images', { disk_id: swap.id });
    expect(r.body.errors[0].field).toBe('disk_id');
    const bad = await t.post('/v4/images', { disk_id: diskId, label: '', tags: ['x'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'label',
      'tags.0',
    ]);
    expect((await t.post('/v4/images', {})).body.errors[0].field).toBe('disk_id');
  });

  it('createImage: add_images and access to the instance; the creator gets read_write on the image', async () => {
    const { computeId, diskId } = await diskToCapture(t);
    const none = await createTestUser(t, {
      grants: [{ type: 'compute', id: computeId, permissions: 'read_only' }],
    });
    expect((await t.post('/v4/images', { disk_id: diskId }, { token: none.token })).status).toBe(
      403,
    );
    const blind = await createTestUser(t, { global: { add_images: true } });
    const hidden = await t.post('/v4/images', { disk_id: diskId }, { token: blind.token });
    expect(hidden.body.errors).toEqual([{ field: 'disk_id', reason: 'Disk not found' }]);
    const u = await createTestUser(t, {
      global: { add_images: true },
      grants: [{ type: 'compute', id: computeId, permissions: 'read_only' }],
    });
    const r = await t.post('/v4/images', { disk_id: diskId }, { token: u.token });
    expect(r.status).toBe(200);
    const n = Number(r.body.id.split('/')[1]);
    const grants = await t.get(`/v4/account/users/${u.username}/grants`);
    expect(grants.body.image).toEqual([{ id: n, label: 'golden', permissions: 'read_write' }]);
    // A scope lacking computes:read_only is refused.
    const scoped = await createTestUser(t, { restricted: false, scopes: 'images:read_write' });
    expect((await t.post('/v4/images', { disk_id: diskId }, { token: scoped.token })).status).toBe(
      401,
    );
  });

  it('getImages: public images for everyone; private ones for their account and granted users', async () => {
    const img = await capturedImage(t, { label: 'mine' });
    const n = Number(img.id.split('/')[1]);
    const ids = async (token?: string | null) =>
      (
        await t.get('/v4/images', {
          token,
          filter: { is_public: false },
        })
      ).body.data.map((i: { id: string }) => i.id);
    expect(await ids()).toEqual([img.id]);
    expect(await ids(null)).toEqual([]);
    const other = await secondAccount(t);
    expect(await ids(other.token)).toEqual([]);
    expect((await t.get(`/v4/images/${img.id}`, { token: other.token })).status).toBe(404);
    expect((await t.get(`/v4/images/${img.id}`, { token: null })).status).toBe(404);
    const noGrant = await createTestUser(t);
    expect(await ids(noGrant.token)).toEqual([]);
    expect((await t.get(`/v4/images/${img.id}`, { token: noGrant.token })).status).toBe(404);
    const granted = await createTestUser(t, {
      grants: [{ type: 'image', id: n, permissions: 'read_only' }],
    });
    expect(await ids(granted.token)).toEqual([img.id]);
    const all = await t.get('/v4/images', { token: null });
    expect(all.body.data.length).toBeGreaterThan(0);
    expect(all.body.data.every((i: { is_public: boolean }) => i.is_public)).toBe(true);
    const byLabel = await t.get('/v4/images', { filter: { label: 'mine' } });
    expect(byLabel.body.data.map((i: { id: string }) => i.id)).toEqual([img.id]);
  });

  it('getImages: private images are listed before public ones', async () => {
    const img = await capturedImage(t, { label: 'first' });
    const r = await t.get('/v4/images');
    const flags = r.body.data.map((i: { is_public: boolean }) => i.is_public);
    expect(r.body.data[0].id).toBe(img.id);
    expect(flags.indexOf(true)).toBe(flags.lastIndexOf(false) + 1);
  });

  it('getEvents: a restricted user sees the events of the images it holds a grant on', async () => {
    const a = await capturedImage(t, { label: 'granted' });
    const b = await capturedImage(t, { label: 'hidden' });
    await t.put(`/v4/images/${a.id}`, { label: 'granted-2' });
    await t.put(`/v4/images/${b.id}`, { label: 'hidden-2' });
    const n = Number(a.id.split('/')[1]);
    const u = await createTestUser(t, {
      grants: [{ type: 'image', id: n, permissions: 'read_only' }],
    });
    const events = await t.get('/v4/account/events', {
      token: u.token,
      filter: { 'entity.type': 'image' },
    });
    expect(events.body.data.map((e: { entity: { id: number } }) => e.entity.id)).toEqual([n]);
  });

  it('updateImage: label, description and tags, with an image_update event; public images refused', async () => {
    const img = await capturedImage(t);
    const r = await t.put(`/v4/images/${img.id}`, {
      label: 'renamed',
      description: 'better',
      tags: ['web', 'prod'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'renamed',
      description: 'better',
      tags: ['prod', 'web'],
    });
    expect((await t.get(`/v4/images/${img.id}`)).body.label).toBe('renamed');
    const cleared = await t.put(`/v4/images/${img.id}`, { description: null });
    expect(cleared.body.description).toBeNull();
    expect((await imageEvents(t, img.id)).map((e) => [e.action, e.status])).toEqual([
      ['image_update', 'notification'],
      ['image_update', 'notification'],
    ]);
    expect((await t.put('/v4/images/compute/debian12', { label: 'x' })).status).toBe(403);
    expect((await t.put('/v4/images/private/999999', { label: 'x' })).status).toBe(404);
    const other = await secondAccount(t);
    expect(
      (await t.put(`/v4/images/${img.id}`, { label: 'x' }, { token: other.token })).status,
    ).toBe(404);
    const n = Number(img.id.split('/')[1]);
    const ro = await createTestUser(t, {
      grants: [{ type: 'image', id: n, permissions: 'read_only' }],
    });
    expect((await t.put(`/v4/images/${img.id}`, { label: 'x' }, { token: ro.token })).status).toBe(
      403,
    );
    expect((await t.del(`/v4/images/${img.id}`, { token: ro.token })).status).toBe(403);
  });

  it('deleteImage: the image is gone, with an image_delete event, and can no longer be deployed', async () => {
    const img = await capturedImage(t);
    const r = await t.del(`/v4/images/${img.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get(`/v4/images/${img.id}`)).status).toBe(404);
    expect((await imageEvents(t, img.id)).map((e) => e.action)).toEqual(['image_delete']);
    const deploy = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: img.id,
      root_pass: STRONG,
    });
    expect(deploy.status).toBe(400);
    expect(deploy.body.errors).toContainEqual({ field: 'image', reason: 'image is not valid' });
    expect((await t.del(`/v4/images/${img.id}`)).status).toBe(404);
    expect((await t.del('/v4/images/compute/debian12')).status).toBe(403);
  });

  it('createComputeInstance: deploys from an available private image to running; not while it is creating', async () => {
    const { diskId } = await diskToCapture(t, 2000);
    const pending = await t.post('/v4/images', { disk_id: diskId });
    const body = {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: pending.body.id,
      root_pass: STRONG,
    };
    const early = await t.post('/v4/compute/instances', body);
    expect(early.status).toBe(400);
    expect(early.body.errors[0].field).toBe('image');
    await t.settle();
    const r = await t.post('/v4/compute/instances', body);
    expect(r.status).toBe(200);
    expect(r.body.image).toBe(pending.body.id);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('running');
    const disks = (await t.get(`/v4/compute/instances/${r.body.id}/disks`)).body.data;
    expect(disks[0]).toMatchObject({ filesystem: 'ext4', status: 'ready' });
  });

  it('addComputeDisk: a private image needs a disk of at least its size; restricted users need a grant on it', async () => {
    const img = await capturedImage(t);
    const inst = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    await t.settle();
    const url = `/v4/compute/instances/${inst.body.id}/disks`;
    const small = await t.post(url, { size: 1999, image: img.id, root_pass: STRONG });
    expect(small.body.errors).toEqual([
      { field: 'size', reason: 'The image needs a disk of at least 2000 MB' },
    ]);
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.body.id, permissions: 'read_write' }],
    });
    const hidden = await t.post(
      url,
      { size: 2000, image: img.id, root_pass: STRONG },
      { token: u.token },
    );
    expect(hidden.body.errors).toEqual([{ field: 'image', reason: 'image is not valid' }]);
    const ok = await t.post(url, { size: 2000, image: img.id, root_pass: STRONG });
    expect(ok.status).toBe(200);
    expect(ok.body.size).toBe(2000);
  });

  it('createComputeInstance: the plan must leave the private image its size after swap', async () => {
    // A 25088 MB image: the boot disk of a nanode with the default 512 MB swap.
    const src = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted: false,
    });
    await t.settle();
    const boot = (await t.get(`/v4/compute/instances/${src.body.id}/disks`)).body.data[0];
    const img = await t.post('/v4/images', { disk_id: boot.id });
    await t.settle();
    expect(img.body.size).toBe(25088);
    const body = { region: 'us-east', type: 'g6-nanode-1', image: img.body.id, root_pass: STRONG };
    const tight = await t.post('/v4/compute/instances', { ...body, swap_size: 1024 });
    expect(tight.status).toBe(400);
    expect(tight.body.errors[0].field).toBe('swap_size');
    expect((await t.post('/v4/compute/instances', body)).status).toBe(200);
  });

  it('imageStorageMb: the account image storage counts the size of each private image', async () => {
    await capturedImage(t);
    await capturedImage(t);
    expect(await imageStorageMb(t.ctx.db, t.admin.accountId)).toBe(4000);
    const other = await secondAccount(t);
    expect(await imageStorageMb(t.ctx.db, other.accountId)).toBe(0);
  });
});
