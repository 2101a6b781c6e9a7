import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, type S3TestApp } from './fixtures.js';

/** Object bytes follow the emulator's reset: no blob outlives the rows that referred to it. */
describe('object storage and the emulator state', () => {
  let t: S3TestApp;
  beforeEach(async () => {
    t = await buildS3App();
  });
  afterEach(() => t.dispose());

  // Read through the blob store, so that the test holds on either backend.
  const blobs = async () => {
    const out: string[] = [];
    for await (const k of t.ctx.areas.objectStorage.data.blobs.list()) out.push(k);
    return out;
  };

  it('reset: the objects of the reset state lose their bytes in the blob store', async () => {
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'gone' });
    const s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
    await s3.send(new PutObjectCommand({ Bucket: 'gone', Key: 'a', Body: 'aaa' }));
    await s3.send(new PutObjectCommand({ Bucket: 'gone', Key: 'b', Body: 'bbb' }));
    expect((await blobs()).length).toBe(2);
    const token = await t.ctx.areas.controls.operator.rotate();
    expect((await t.post('/_stratus/reset', undefined, { token })).status).toBe(200);
    expect(await blobs()).toEqual([]);
  });
});
