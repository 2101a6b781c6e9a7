import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageStorageMb } from '../../../src/modules/images/images.repository.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from '../controls/helpers.js';
import { secondAccount } from '../identity/fixtures.js';
import { capturedImage, gzippedImage, imageEvents, putUpload, STRONG } from './fixtures.js';

type Replica = { region: string; status: string };

/** Image replicas: `regions`, `total_size`, `POST /images/{id}/regions` and their billing. */
describe('image replicas', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const regionsOf = async (id: string): Promise<Replica[]> =>
    (await t.get(`/v4/images/${id}`)).body.regions;
  const imageFacts = (imageId: string) =>
    t.ctx.db.db
      .selectFrom('billing_facts')
      .select(['ref', 'region', 'quantity', 'monthly_micros'])
      .where('entity_type', '=', 'image')
      .where('entity_id', '=', Number(imageId.split('/')[1]))
      .where('to_ms', 'is', null)
      .orderBy('ref')
      .execute();
  /** Moves the clock to the next due job and runs what is due (one step of each job). */
  const step = async () => {
    const next = await t.ctx.runner.nextDueAt();
    if (next !== undefined && next > t.clock.nowMs()) t.clock.set(next);
    await t.runDue();
  };

  it('createImage: no region while creating; its instance region, available, once captured; total_size is size, not replicated, and image_sharing', async () => {
    const { diskId } = await (async () => {
      const inst = await t.post('/v4/compute/instances', {
        region: 'us-east',
        type: 'g6-nanode-1',
      });
      await t.settle();
      const d = await t.post(`/v4/compute/instances/${inst.body.id}/disks`, {
        size: 2000,
        image: 'compute/debian12',
        root_pass: STRONG,
      });
      await t.settle();
      return { diskId: d.body.id as number };
    })();
    const r = await t.post('/v4/images', { disk_id: diskId });
    expect(r.body).toMatchObject({ status: 'creating', regions: [], size: 2000, total_size: 2000 });
    expect(r.body.is_shared).toBe(false);
    expect(r.body.image_sharing).toEqual({
      shared_with: { sharegroup_count: 0, sharegroup_list_url: `/images/${r.body.id}/sharegroups` },
      shared_by: null,
    });
    await t.settle();
    const view = await t.get(`/v4/images/${r.body.id}`);
    expect(view.body).toMatchObject({
      status: 'available',
      regions: [{ region: 'us-east', status: 'available' }],
      total_size: 2000,
    });
    const list = await t.get('/v4/images', { filter: { is_public: false } });
    expect(list.body.data[0]).toMatchObject({ id: r.body.id, total_size: 2000 });
  });

  it('uploadImage: no region while pending; the upload region, available, once the bytes are in', async () => {
    const up = await t.post('/v4/images/upload', { region: 'us-central', label: 'up' });
    expect(up.body.image).toMatchObject({ regions: [], total_size: 0, is_shared: false });
    expect((await putUpload(t, up.body.upload_to, gzippedImage(3))).status).toBe(200);
    const view = await t.get(`/v4/images/${up.body.image.id}`);
    expect(view.body).toMatchObject({
      status: 'available',
      size: 3,
      regions: [{ region: 'us-central', status: 'available' }],
      total_size: 3,
    });
  });

  it('getImage: public images have no replicas and no sharing (regions null, no total_size)', async () => {
    const r = await t.get('/v4/images/compute/debian12');
    expect(r.body).toMatchObject({ regions: null, is_shared: false, image_sharing: null });
    expect(r.body).not.toHaveProperty('total_size');
  });

  it('replicateImage: adds replicas (pending replication, replicating, available) and removes others (pending deletion, then gone)', async () => {
    const img = await capturedImage(t);
    const r = await t.post(`/v4/images/${img.id}/regions`, {
      regions: ['us-east', 'us-central'],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.regions).toEqual([
      { region: 'us-east', status: 'available' },
      { region: 'us-central', status: 'pending replication' },
    ]);
    // Only available replicas count.
    expect(r.body.total_size).toBe(2000);
    await step();
    expect(await regionsOf(img.id)).toContainEqual({ region: 'us-central', status: 'replicating' });
    await step();
    expect((await t.get(`/v4/images/${img.id}`)).body).toMatchObject({
      regions: [
        { region: 'us-east', status: 'available' },
        { region: 'us-central', status: 'available' },
      ],
      total_size: 4000,
    });
    expect(await imageStorageMb(t.ctx.db, t.admin.accountId)).toBe(4000);

    // The list replaces the regions: us-east goes, us-southeast comes.
    const again = await t.post(`/v4/images/${img.id}/regions`, {
      regions: ['us-central', 'us-southeast'],
    });
    expect(again.body.regions).toEqual([
      { region: 'us-east', status: 'pending deletion' },
      { region: 'us-central', status: 'available' },
      { region: 'us-southeast', status: 'pending replication' },
    ]);
    expect(again.body.total_size).toBe(2000);
    await t.settle();
    expect(await regionsOf(img.id)).toEqual([
      { region: 'us-central', status: 'available' },
      { region: 'us-southeast', status: 'available' },
    ]);
    // Each change is an image_update notification.
    const updates = (await imageEvents(t, img.id)).filter((e) => e.action === 'image_update');
    expect(updates.map((e) => e.status)).toEqual(['notification', 'notification']);
    // The same list again changes nothing and writes no event.
    const same = await t.post(`/v4/images/${img.id}/regions`, {
      regions: ['us-southeast', 'us-central'],
    });
    expect(same.body.regions).toHaveLength(2);
    expect((await imageEvents(t, img.id)).filter((e) => e.action === 'image_update')).toHaveLength(
      2,
    );
  });

  it('replicateImage: a replica removed while it replicates is deleted, never made available', async () => {
    const img = await capturedImage(t);
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-east', 'us-central'] });
    await step();
    expect(await regionsOf(img.id)).toContainEqual({ region: 'us-central', status: 'replicating' });
    const r = await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-east'] });
    expect(r.body.regions).toContainEqual({ region: 'us-central', status: 'pending deletion' });
    await t.settle();
    expect(await regionsOf(img.id)).toEqual([{ region: 'us-east', status: 'available' }]);
    expect(await imageFacts(img.id)).toHaveLength(1);
  });

  it('replicateImage: a region pending deletion may be added again', async () => {
    const img = await capturedImage(t);
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-east', 'us-central'] });
    await t.settle();
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-central'] });
    const back = await t.post(`/v4/images/${img.id}/regions`, {
      regions: ['us-central', 'us-east'],
    });
    expect(back.status).toBe(200);
    expect(back.body.regions).toContainEqual({ region: 'us-east', status: 'pending replication' });
    await t.settle();
    expect((await regionsOf(img.id)).map((x) => x.status)).toEqual(['available', 'available']);
  });

  it('replicateImage: regions must be valid core regions that store images; at least one available replica stays', async () => {
    const img = await capturedImage(t);
    const post = (body: unknown) => t.post(`/v4/images/${img.id}/regions`, body);
    const empty = await post({ regions: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([
      { field: 'regions', reason: 'At least one region is required.' },
    ]);
    const unknown = await post({ regions: ['us-east', 'xx-nowhere'] });
    expect(unknown.body.errors).toEqual([
      { field: 'regions', reason: 'Region xx-nowhere is not valid.' },
    ]);
    // us-west has no object storage: images cannot be stored there.
    const noStore = await post({ regions: ['us-east', 'us-west'] });
    expect(noStore.status).toBe(400);
    expect(noStore.body.errors).toEqual([
      { field: 'regions', reason: 'Images cannot be stored in region us-west.' },
    ]);
    const dropAll = await post({ regions: ['us-central'] });
    expect(dropAll.status).toBe(400);
    expect(dropAll.body.errors).toEqual([
      { field: 'regions', reason: 'At least one available region must be present (us-east).' },
    ]);
    expect((await post({ regions: null })).status).toBe(400);
    expect((await post(undefined)).status).toBe(400);
    expect((await post({ regions: 'us-east' })).status).toBe(400);
    // Nothing was written by the refused calls.
    expect(await regionsOf(img.id)).toEqual([{ region: 'us-east', status: 'available' }]);
    expect((await imageEvents(t, img.id)).filter((e) => e.action === 'image_update')).toEqual([]);
  });

  it('replicateImage: the image must be available', async () => {
    const up = await t.post('/v4/images/upload', { region: 'us-east', label: 'pending' });
    const r = await t.post(`/v4/images/${up.body.image.id}/regions`, { regions: ['us-east'] });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { reason: `Image ${up.body.image.id} must be available to be replicated.` },
    ]);
  });

  it('replicateImage: public images are refused, other accounts see 404, the raw slash works', async () => {
    expect(
      (await t.post('/v4/images/compute/debian12/regions', { regions: ['us-east'] })).status,
    ).toBe(403);
    const img = await capturedImage(t);
    const other = await secondAccount(t);
    const theirs = await t.post(
      `/v4/images/${img.id}/regions`,
      { regions: ['us-east'] },
      { token: other.token },
    );
    expect(theirs.status).toBe(404);
    const n = img.id.split('/')[1];
    const encoded = await t.post(`/v4/images/private%2F${n}/regions`, {
      regions: ['us-east', 'eu-central'],
    });
    expect(encoded.status).toBe(200);
    expect(encoded.body.regions).toHaveLength(2);
  });

  it('replicateImage: needs images:read_write and read_write on the image for a restricted user', async () => {
    const img = await capturedImage(t);
    const n = Number(img.id.split('/')[1]);
    const body = { regions: ['us-east', 'us-central'] };
    const ro = await createTestUser(t, {
      grants: [{ type: 'image', id: n, permissions: 'read_only' }],
    });
    expect((await t.post(`/v4/images/${img.id}/regions`, body, { token: ro.token })).status).toBe(
      403,
    );
    const scoped = await createTestUser(t, { restricted: false, scopes: 'images:read_only' });
    expect(
      (await t.post(`/v4/images/${img.id}/regions`, body, { token: scoped.token })).status,
    ).toBe(401);
    const rw = await createTestUser(t, {
      grants: [{ type: 'image', id: n, permissions: 'read_write' }],
    });
    expect((await t.post(`/v4/images/${img.id}/regions`, body, { token: rw.token })).status).toBe(
      200,
    );
  });

  it('billing: each available replica is billed per GB at $0.10/GB-month until removed or deleted', async () => {
    const img = await capturedImage(t);
    expect(await imageFacts(img.id)).toEqual([
      { ref: 'us-east', region: 'us-east', quantity: 2, monthly_micros: 100_000 },
    ]);
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-east', 'us-central'] });
    // Not billed while it replicates.
    expect(await imageFacts(img.id)).toHaveLength(1);
    await t.settle();
    expect((await imageFacts(img.id)).map((f) => f.ref)).toEqual(['us-central', 'us-east']);
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-central'] });
    expect((await imageFacts(img.id)).map((f) => f.ref)).toEqual(['us-central']);
    expect((await t.del(`/v4/images/${img.id}`)).status).toBe(200);
    expect(await imageFacts(img.id)).toEqual([]);
  });

  it('createComputeInstance: a private image deploys in a region where it has no replica (not refused)', async () => {
    const img = await capturedImage(t);
    const r = await t.post('/v4/compute/instances', {
      region: 'ap-south',
      type: 'g6-nanode-1',
      image: img.id,
      root_pass: STRONG,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).body.status).toBe('running');
  });

  it('importSnapshot: replicas come back with their image; a reset removes them', async () => {
    const token = await operatorToken(t);
    const img = await capturedImage(t);
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-east', 'us-central'] });
    await t.settle();
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    expect(saved.tables.image_regions.rows).toHaveLength(2);
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-central'] });
    await t.settle();
    expect((await op(t, token).post('/_stratus/snapshot', saved)).status).toBe(200);
    expect((await t.get(`/v4/images/${img.id}`)).body).toMatchObject({
      regions: [
        { region: 'us-east', status: 'available' },
        { region: 'us-central', status: 'available' },
      ],
      total_size: 4000,
    });
    expect((await op(t, token).post('/_stratus/reset', {})).status).toBe(200);
    expect(await t.ctx.db.db.selectFrom('image_regions').selectAll().execute()).toEqual([]);
  });

  it('deleteImage: its replicas go with it', async () => {
    const img = await capturedImage(t);
    await t.post(`/v4/images/${img.id}/regions`, { regions: ['us-east', 'us-central'] });
    expect((await t.del(`/v4/images/${img.id}`)).status).toBe(200);
    await t.settle();
    const left = await t.ctx.db.db
      .selectFrom('image_regions')
      .select('region')
      .where('image_id', '=', Number(img.id.split('/')[1]))
      .execute();
    expect(left).toEqual([]);
  });
});
