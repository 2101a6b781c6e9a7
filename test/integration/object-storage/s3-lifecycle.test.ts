import {
  CreateMultipartUploadCommand,
  DeleteBucketLifecycleCommand,
  DeleteObjectCommand,
  GetBucketLifecycleConfigurationCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  type LifecycleRule,
  PutBucketLifecycleConfigurationCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;
const DAY = 86_400_000;

const bucket = async (label: string, versioned = false) => {
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
  if (versioned)
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: label,
        VersioningConfiguration: { Status: 'Enabled' },
      }),
    );
};
const rules = (Bucket: string, Rules: LifecycleRule[]) =>
  s3.send(
    new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules } }),
  );
const keys = async (Bucket: string) =>
  ((await s3.send(new ListObjectsV2Command({ Bucket }))).Contents ?? []).map((o) => o.Key);

/** Moves the emulator clock `days` ahead, runs the jobs then due, and comes back to now. */
async function daysLater(days: number): Promise<void> {
  t.clock.set(Date.now() + days * DAY);
  await t.runDue();
  t.clock.set(Date.now());
}

beforeAll(async () => {
  t = await buildS3App();
  s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
});
afterAll(() => t.dispose());

describe('S3 lifecycle configuration', () => {
  it('PutBucketLifecycleConfiguration/Get/Delete: the rules as given; none is NoSuchLifecycleConfiguration', async () => {
    await bucket('lc-conf');
    const get = () => s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-conf' }));
    expect((await failure(get())).name).toBe('NoSuchLifecycleConfiguration');
    await rules('lc-conf', [
      { ID: 'logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 7 } },
      {
        ID: 'tagged',
        Status: 'Disabled',
        Filter: { And: { Prefix: 'tmp/', Tags: [{ Key: 'kind', Value: 'scratch' }] } },
        NoncurrentVersionExpiration: { NoncurrentDays: 3, NewerNoncurrentVersions: 2 },
        Expiration: { ExpiredObjectDeleteMarker: true },
      },
      {
        ID: 'uploads',
        Status: 'Enabled',
        Filter: { ObjectSizeGreaterThan: 10 },
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 2 },
      },
    ]);
    const got = (await get()).Rules ?? [];
    expect(got.map((r) => r.ID)).toEqual(['logs', 'tagged', 'uploads']);
    expect(got[0]).toMatchObject({ Filter: { Prefix: 'logs/' }, Expiration: { Days: 7 } });
    expect(got[1]?.Filter?.And?.Tags).toEqual([{ Key: 'kind', Value: 'scratch' }]);
    expect(got[1]?.NoncurrentVersionExpiration).toEqual({
      NoncurrentDays: 3,
      NewerNoncurrentVersions: 2,
    });
    expect(got[2]?.AbortIncompleteMultipartUpload?.DaysAfterInitiation).toBe(2);
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: 'lc-conf' }));
    expect((await failure(get())).name).toBe('NoSuchLifecycleConfiguration');
  });

  it('PutBucketLifecycleConfiguration: invalid rules are refused as S3 refuses them', async () => {
    await bucket('lc-bad');
    const cases: [LifecycleRule[], string][] = [
      [
        [{ ID: 'x', Status: 'Enabled', Filter: { Prefix: '' }, Expiration: { Days: 0 } }],
        'InvalidArgument',
      ],
      [
        [
          { ID: 'x', Status: 'Enabled', Filter: { Prefix: 'a' }, Expiration: { Days: 1 } },
          { ID: 'x', Status: 'Enabled', Filter: { Prefix: 'b' }, Expiration: { Days: 1 } },
        ],
        'InvalidArgument',
      ],
      [[{ ID: 'x', Status: 'Enabled', Filter: { Prefix: 'a' } }], 'MalformedXML'],
      [
        [
          {
            ID: 'x',
            Status: 'Sometimes' as 'Enabled',
            Filter: { Prefix: 'a' },
            Expiration: { Days: 1 },
          },
        ],
        'MalformedXML',
      ],
      [
        [
          {
            ID: 'x',
            Status: 'Enabled',
            Filter: { Prefix: 'a' },
            Transitions: [{ Days: 1, StorageClass: 'GLACIER' }],
          },
        ],
        'InvalidStorageClass',
      ],
      [
        [
          {
            ID: 'x'.repeat(256),
            Status: 'Enabled',
            Filter: { Prefix: 'a' },
            Expiration: { Days: 1 },
          },
        ],
        'InvalidArgument',
      ],
    ];
    for (const [r, name] of cases) expect((await failure(rules('lc-bad', r))).name).toBe(name);
  });
});

describe('S3 lifecycle execution (a job on the emulator clock)', () => {
  it('Expiration Days: objects under the prefix go at the midnight after their days; others stay', async () => {
    await bucket('lc-exp');
    for (const Key of ['logs/a', 'logs/b', 'keep/c'])
      await s3.send(new PutObjectCommand({ Bucket: 'lc-exp', Key, Body: Key }));
    await rules('lc-exp', [
      { ID: 'logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 2 } },
    ]);
    await daysLater(1);
    expect(await keys('lc-exp')).toEqual(['keep/c', 'logs/a', 'logs/b']);
    await daysLater(3);
    expect(await keys('lc-exp')).toEqual(['keep/c']);
    const b = await t.get(`/v4/object-storage/buckets/${CLUSTER}/lc-exp`);
    expect(b.body).toMatchObject({ objects: 1, size: 6 });
  });

  it('a disabled rule or a tag filter the object does not match expires nothing', async () => {
    await bucket('lc-tags');
    await s3.send(
      new PutObjectCommand({ Bucket: 'lc-tags', Key: 'a', Body: 'a', Tagging: 'kind=scratch' }),
    );
    await s3.send(
      new PutObjectCommand({ Bucket: 'lc-tags', Key: 'b', Body: 'b', Tagging: 'kind=keep' }),
    );
    await rules('lc-tags', [
      { ID: 'off', Status: 'Disabled', Filter: { Prefix: '' }, Expiration: { Days: 1 } },
      {
        ID: 'scratch',
        Status: 'Enabled',
        Filter: { Tag: { Key: 'kind', Value: 'scratch' } },
        Expiration: { Days: 1 },
      },
    ]);
    await daysLater(3);
    expect(await keys('lc-tags')).toEqual(['b']);
  });

  it('versioned: expiry writes a delete marker; noncurrent versions expire; a lone marker is removed', async () => {
    await bucket('lc-ver', true);
    await s3.send(new PutObjectCommand({ Bucket: 'lc-ver', Key: 'doc', Body: 'v1' }));
    await s3.send(new PutObjectCommand({ Bucket: 'lc-ver', Key: 'doc', Body: 'v2' }));
    await rules('lc-ver', [
      { ID: 'cur', Status: 'Enabled', Filter: { Prefix: 'doc' }, Expiration: { Days: 5 } },
      {
        ID: 'old',
        Status: 'Enabled',
        Filter: { Prefix: '' },
        NoncurrentVersionExpiration: { NoncurrentDays: 1 },
      },
    ]);
    await daysLater(3);
    let v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'lc-ver' }));
    expect(v.Versions?.length).toBe(1);
    expect(v.DeleteMarkers ?? []).toEqual([]);
    await daysLater(7);
    v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'lc-ver' }));
    expect(v.DeleteMarkers?.length).toBe(1);
    await rules('lc-ver', [
      {
        ID: 'old',
        Status: 'Enabled',
        Filter: { Prefix: '' },
        NoncurrentVersionExpiration: { NoncurrentDays: 1 },
      },
      {
        ID: 'markers',
        Status: 'Enabled',
        Filter: { Prefix: '' },
        Expiration: { ExpiredObjectDeleteMarker: true },
      },
    ]);
    await daysLater(12);
    v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'lc-ver' }));
    expect(v.Versions ?? []).toEqual([]);
    expect(v.DeleteMarkers ?? []).toEqual([]);
  });

  it('NewerNoncurrentVersions keeps that many noncurrent versions', async () => {
    await bucket('lc-newer', true);
    for (const Body of ['1', '2', '3', '4'])
      await s3.send(new PutObjectCommand({ Bucket: 'lc-newer', Key: 'k', Body }));
    await rules('lc-newer', [
      {
        ID: 'keep2',
        Status: 'Enabled',
        Filter: { Prefix: '' },
        NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: 2 },
      },
    ]);
    await daysLater(3);
    const v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'lc-newer' }));
    expect(v.Versions?.map((x) => x.Size)).toEqual([1, 1, 1]);
  });

  it('AbortIncompleteMultipartUpload: uploads older than their days are aborted', async () => {
    await bucket('lc-mpu');
    await s3.send(new CreateMultipartUploadCommand({ Bucket: 'lc-mpu', Key: 'big' }));
    await rules('lc-mpu', [
      {
        ID: 'abort',
        Status: 'Enabled',
        Filter: { Prefix: '' },
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
      },
    ]);
    await daysLater(3);
    const u = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'lc-mpu' }));
    expect(u.Uploads ?? []).toEqual([]);
  });

  it('the schedule ends with its rules: no job is left once the configuration is deleted', async () => {
    await bucket('lc-end');
    await s3.send(new PutObjectCommand({ Bucket: 'lc-end', Key: 'x', Body: 'x' }));
    await rules('lc-end', [
      { ID: 'r', Status: 'Enabled', Filter: { Prefix: '' }, Expiration: { Days: 30 } },
    ]);
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: 'lc-end' }));
    await daysLater(40);
    expect(await keys('lc-end')).toEqual(['x']);
    const b = await t.ctx.db.db
      .selectFrom('obj_buckets')
      .select('id')
      .where('label', '=', 'lc-end')
      .executeTakeFirstOrThrow();
    expect(await t.ctx.queue.hasActive(t.ctx.db, 'object_storage_bucket', b.id)).toBe(false);
    await s3.send(new DeleteObjectCommand({ Bucket: 'lc-end', Key: 'x' }));
  });
});
