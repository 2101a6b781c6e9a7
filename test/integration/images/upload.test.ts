import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../../src/storage/index.js';
import { createTestUser } from '../../helpers/auth.js';
import {
  type BlobCluster,
  startBlobCluster,
  TEST_BLOB_BACKEND,
} from '../../helpers/blob-cluster.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { gzippedImage, imageEvents, putUpload, STRONG } from './fixtures.js';

const HOUR = 3600 * 1000;

describe('image upload', () => {
  let t: TestApp;
  // STRATUS_TEST_BLOB_BACKEND=s3: the bytes go to an external S3 cluster (another Stratus).
  let cluster: BlobCluster | undefined;
  beforeAll(async () => {
    if (TEST_BLOB_BACKEND === 's3') cluster = await startBlobCluster();
  });
  afterAll(async () => {
    await cluster?.dispose();
  });
  beforeEach(async () => {
    t = await buildTestApp(cluster ? { env: cluster.freshEnv() } : {});
  });
  afterEach(async () => {
    await t.close();
  });

  // The `images` area of the blob store, read through the BlobStore interface.
  const store = () => (t.ctx.areas.images.images as unknown as { d: { bytes: BlobStore } }).d.bytes;
  const keys = async () => {
    const out: string[] = [];
    for await (const k of store().list()) out.push(k);
    return out;
  };
  const blobOf = async (imageId: string) => {
    const row = await t.ctx.db.db
      .selectFrom('private_images')
      .select('blob_key')
      .where('id', '=', Number(imageId.split('/')[1]))
      .executeTakeFirstOrThrow();
    const chunks: Buffer[] = [];
    for await (const c of await store().get(row.blob_key as string)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const start = async (body: Record<string, unknown> = {}) => {
    const r = await t.post('/v4/images/upload', {
      region: 'us-east',
      label: 'uploaded',
      description: 'raw',
      cloud_init: true,
      ...body,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { upload_to: string; image: { id: string; status: string; size: number } };
  };

  it('uploadImage: answers a pending_upload image and an upload URL served by Stratus', async () => {
    const r = await start();
    expect(r.image).toMatchObject({
      label: 'uploaded',
      description: 'raw',
      status: 'pending_upload',
      size: 0,
      is_public: false,
      capabilities: ['cloud-init'],
    });
    expect(r.upload_to).toMatch(
      /^http:\/\/localhost(:[0-9]+)?\/_stratus\/image-uploads\/[0-9a-f]{64}$/,
    );
    expect((await imageEvents(t, r.image.id)).map((e) => [e.action, e.status])).toEqual([
      ['image_upload', 'started'],
    ]);
    // The URL's secret is stored hashed only.
    const row = await t.ctx.db.db
      .selectFrom('private_images')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(row.upload_token_hash).not.toContain(r.upload_to.split('/').pop());
  });

  it('uploadImage: PUT of the gzipped raw image completes it: available, size from the bytes', async () => {
    const r = await start();
    const data = gzippedImage(3);
    const put = await putUpload(t, r.upload_to, data);
    expect(put.status).toBe(200);
    const view = await t.get(`/v4/images/${r.image.id}`);
    expect(view.body).toMatchObject({ status: 'available', size: 3 });
    expect((await imageEvents(t, r.image.id)).map((e) => [e.action, e.status])).toEqual([
      ['image_upload', 'finished'],
    ]);
    const kept = await blobOf(r.image.id);
    expect(kept.equals(data)).toBe(true);
    expect(gunzipSync(kept).length).toBe(3 * 1024 * 1024);
    // The URL is used up.
    expect((await putUpload(t, r.upload_to, data)).status).toBe(404);
    // The uploaded image deploys.
    const inst = await t.post('/v4/compute/instances', {
      region: 'us-west',
      type: 'g6-nanode-1',
      image: r.image.id,
      root_pass: STRONG,
    });
    expect(inst.status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/compute/instances/${inst.body.id}`)).body.status).toBe('running');
  });

  it('uploadImage: a body that is not gzip is refused and the image stays pending_upload', async () => {
    const r = await start();
    const bad = await putUpload(t, r.upload_to, Buffer.from('definitely not gzip'));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].reason).toMatch(/gzip/);
    const empty = await putUpload(t, r.upload_to, Buffer.alloc(0));
    expect(empty.status).toBe(400);
    expect((await t.get(`/v4/images/${r.image.id}`)).body.status).toBe('pending_upload');
    expect(await keys()).toEqual([]);
    expect((await putUpload(t, r.upload_to, gzippedImage(1))).status).toBe(200);
  });

  it('uploadImage: a valid gzip of an empty file is accepted (size 1 MB)', async () => {
    const r = await start();
    const { gzipSync } = await import('node:zlib');
    const res = await putUpload(t, r.upload_to, gzipSync(Buffer.alloc(0)));
    expect(res.status).toBe(200);
    const img = (await t.get(`/v4/images/${r.image.id}`)).body;
    expect(img.status).toBe('available');
    expect(img.size).toBe(1);
  });

  it('uploadImage: a pending image cannot deploy; unknown URLs are 404', async () => {
    const r = await start();
    const inst = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: r.image.id,
      root_pass: STRONG,
    });
    expect(inst.status).toBe(400);
    expect(inst.body.errors[0].field).toBe('image');
    const url = new URL(r.upload_to);
    const wrong = `${url.origin}/_stratus/image-uploads/${'0'.repeat(64)}`;
    expect((await putUpload(t, wrong, gzippedImage(1))).status).toBe(404);
    expect((await putUpload(t, `${url.origin}/_stratus/image-uploads/nope`, 'x')).status).toBe(404);
  });

  it('uploadImage: not uploaded within 24 hours: the image is deleted and its event failed', async () => {
    const r = await start();
    t.clock.set(t.clock.nowMs() + 23 * HOUR);
    await t.runDue();
    expect((await t.get(`/v4/images/${r.image.id}`)).status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/images/${r.image.id}`)).status).toBe(404);
    expect(await imageEvents(t, r.image.id)).toMatchObject([
      { action: 'image_upload', status: 'failed' },
    ]);
    expect((await putUpload(t, r.upload_to, gzippedImage(1))).status).toBe(404);
  });

  it('uploadImage: an upload completed in time is not removed by the 24-hour check', async () => {
    const r = await start();
    expect((await putUpload(t, r.upload_to, gzippedImage(1))).status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/images/${r.image.id}`)).body.status).toBe('available');
  });

  it('uploadImage: region and label required; add_images needed', async () => {
    const r = await t.post('/v4/images/upload', {});
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'label',
      'region',
    ]);
    const bad = await t.post('/v4/images/upload', { region: 'mars-1', label: 'x' });
    expect(bad.body.errors).toEqual([{ field: 'region', reason: 'region is not valid' }]);
    const u = await createTestUser(t);
    const denied = await t.post(
      '/v4/images/upload',
      { region: 'us-east', label: 'x' },
      { token: u.token },
    );
    expect(denied.status).toBe(403);
  });

  it('deleteImage: removes the uploaded bytes; deleting a pending upload fails its event', async () => {
    const done = await start();
    await putUpload(t, done.upload_to, gzippedImage(1));
    expect(await keys()).toHaveLength(1);
    expect((await t.del(`/v4/images/${done.image.id}`)).status).toBe(200);
    expect(await keys()).toEqual([]);
    const pending = await start({ label: 'pending' });
    expect((await t.del(`/v4/images/${pending.image.id}`)).status).toBe(200);
    expect((await imageEvents(t, pending.image.id)).map((e) => [e.action, e.status])).toEqual([
      ['image_upload', 'failed'],
      ['image_delete', 'notification'],
    ]);
  });
});
