import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteBucketTaggingCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  DeleteObjectTaggingCommand,
  GetBucketTaggingCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  type S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;
const MiB = 1024 * 1024;

beforeAll(async () => {
  t = await buildS3App();
  s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
  for (const label of ['cond', 'mpu', 'tags', 'condv'])
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
});
afterAll(() => t.dispose());

describe('S3 conditional requests', () => {
  it('PutObject If-None-Match: * creates once (a lock), then 412; If-Match needs the current ETag', async () => {
    const lock = () =>
      failure(
        s3.send(
          new PutObjectCommand({ Bucket: 'cond', Key: 'lock', Body: 'me', IfNoneMatch: '*' }),
        ),
      );
    expect((await lock()).name).toBe('no error');
    expect(await lock()).toMatchObject({ name: 'PreconditionFailed', status: 412 });
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'cond', Key: 'lock' }));
    const swap = (IfMatch: string) =>
      failure(s3.send(new PutObjectCommand({ Bucket: 'cond', Key: 'lock', Body: 'you', IfMatch })));
    expect((await swap('"0123"')).status).toBe(412);
    expect((await swap(head.ETag as string)).name).toBe('no error');
    const missing = await failure(
      s3.send(new PutObjectCommand({ Bucket: 'cond', Key: 'nope', Body: 'x', IfMatch: '"a"' })),
    );
    expect(missing.name).toBe('NoSuchKey');
  });

  it('PutObject If-None-Match: * under concurrency: exactly one writer wins', async () => {
    const tries = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        failure(
          s3.send(
            new PutObjectCommand({ Bucket: 'cond', Key: 'race', Body: `w${i}`, IfNoneMatch: '*' }),
          ),
        ),
      ),
    );
    expect(tries.filter((r) => r.name === 'no error')).toHaveLength(1);
    expect(tries.filter((r) => r.status === 412)).toHaveLength(7);
  });

  it('GetObject: If-Match/If-Unmodified-Since are 412, If-None-Match/If-Modified-Since 304', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: 'cond', Key: 'g', Body: 'g' }));
    const get = (o: Record<string, unknown>) =>
      failure(s3.send(new GetObjectCommand({ Bucket: 'cond', Key: 'g', ...o })));
    expect((await get({ IfMatch: '"nope"' })).status).toBe(412);
    expect((await get({ IfMatch: put.ETag })).name).toBe('no error');
    expect((await get({ IfNoneMatch: put.ETag })).status).toBe(304);
    expect((await get({ IfModifiedSince: new Date(Date.now() + 60_000) })).status).toBe(304);
    expect((await get({ IfUnmodifiedSince: new Date(Date.now() - 3_600_000) })).status).toBe(412);
    expect((await get({ IfModifiedSince: new Date(Date.now() - 3_600_000) })).name).toBe(
      'no error',
    );
  });

  it('DeleteObject If-Match: refused unless the ETag is current', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: 'cond', Key: 'd', Body: 'd' }));
    expect(
      (
        await failure(
          s3.send(new DeleteObjectCommand({ Bucket: 'cond', Key: 'd', IfMatch: '"x"' })),
        )
      ).status,
    ).toBe(412);
    await s3.send(new DeleteObjectCommand({ Bucket: 'cond', Key: 'd', IfMatch: put.ETag }));
  });

  it('DeleteObject conditions: time and size as RGW has them; a missing target is a 204 and nothing is deleted', async () => {
    const del = (o: Record<string, unknown>) =>
      failure(s3.send(new DeleteObjectCommand({ Bucket: 'cond', Key: 'dc', ...o })));
    await s3.send(new PutObjectCommand({ Bucket: 'cond', Key: 'dc', Body: 'four' }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'cond', Key: 'dc' }));
    expect((await del({ IfMatchLastModifiedTime: new Date('2015-01-01') })).status).toBe(412);
    expect((await del({ IfMatchSize: 5 })).status).toBe(412);
    expect(await del({ IfMatchSize: 'x' })).toMatchObject({ status: 400 });
    expect((await del({ IfMatchLastModifiedTime: head.LastModified, IfMatchSize: 4 })).name).toBe(
      'no error',
    );
    // Gone: no condition can fail, and the answer is S3's 204 for a delete.
    expect((await del({ IfMatch: '"bad"' })).name).toBe('no error');
    expect((await del({ IfMatch: '*' })).name).toBe('no error');
    // Absent: the missing-key answer names it as no delete marker.
    const missing = await failure(s3.send(new HeadObjectCommand({ Bucket: 'cond', Key: 'dc' })));
    expect(missing.status).toBe(404);
    expect(missing.headers?.['x-amz-delete-marker']).toBe('false');
  });

  it('DeleteObject conditions on a versioned bucket: the latest version or a delete marker is the target; a named version is tested itself', async () => {
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: 'condv',
        VersioningConfiguration: { Status: 'Enabled' },
      }),
    );
    const del = (o: Record<string, unknown>) =>
      s3.send(new DeleteObjectCommand({ Bucket: 'condv', Key: 'v', ...o }));
    // Nothing there: no marker is written under a condition.
    await del({ IfMatch: '*' });
    const put = await s3.send(new PutObjectCommand({ Bucket: 'condv', Key: 'v', Body: 'v' }));
    expect((await failure(del({ IfMatch: '"bad"' }))).status).toBe(412);
    expect((await del({ IfMatch: put.ETag })).DeleteMarker).toBe(true);
    // The latest is now a delete marker: it exists (`*` holds), and a real ETag does not match it.
    expect((await failure(del({ IfMatch: '"bad"' }))).status).toBe(412);
    expect((await failure(del({ IfMatchSize: 1 }))).status).toBe(412);
    // A named version is tested itself.
    const v = { VersionId: put.VersionId };
    expect((await failure(del({ ...v, IfMatch: '"bad"' }))).status).toBe(412);
    expect((await del({ ...v, IfMatch: put.ETag })).DeleteMarker).toBeUndefined();
    expect((await failure(del({ ...v, IfMatch: '"bad"' }))).name).toBe('no error');
  });

  it('DeleteObjects: an entry with ETag, LastModifiedTime or Size is deleted only when they hold', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: 'cond', Key: 'm', Body: 'many' }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'cond', Key: 'm' }));
    const many = (o: Record<string, unknown>) =>
      s3.send(
        new DeleteObjectsCommand({ Bucket: 'cond', Delete: { Objects: [{ Key: 'm', ...o }] } }),
      );
    for (const bad of [
      { ETag: '"bad"' },
      { LastModifiedTime: new Date('2015-01-01') },
      { Size: 9999 },
    ]) {
      const r = await many(bad);
      expect(r.Errors?.[0]).toMatchObject({ Key: 'm', Code: 'PreconditionFailed' });
      expect(r.Deleted ?? []).toEqual([]);
    }
    const ok = await many({ ETag: put.ETag, LastModifiedTime: head.LastModified, Size: 4 });
    expect(ok.Deleted?.[0]?.Key).toBe('m');
    expect(
      (await failure(s3.send(new HeadObjectCommand({ Bucket: 'cond', Key: 'm' })))).status,
    ).toBe(404);
  });

  it('CopyObject x-amz-copy-source-if-*: 412 when the source fails the condition', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: 'cond', Key: 'src', Body: 's' }));
    const copy = (o: Record<string, unknown>) =>
      failure(
        s3.send(
          new CopyObjectCommand({ Bucket: 'cond', Key: 'dst', CopySource: 'cond/src', ...o }),
        ),
      );
    expect((await copy({ CopySourceIfMatch: '"x"' })).status).toBe(412);
    expect((await copy({ CopySourceIfNoneMatch: put.ETag })).status).toBe(412);
    expect((await copy({ CopySourceIfModifiedSince: new Date(Date.now() + 60_000) })).status).toBe(
      412,
    );
    expect(
      (await copy({ CopySourceIfUnmodifiedSince: new Date(Date.now() - 3_600_000) })).status,
    ).toBe(412);
    expect((await copy({ CopySourceIfMatch: put.ETag })).name).toBe('no error');
  });
});

describe('S3 multipart completeness', () => {
  it('UploadPartCopy: parts copied from an object (whole and by range) complete into the object', async () => {
    const body = Buffer.alloc(6 * MiB, 'a');
    body.fill('b', 5 * MiB);
    await s3.send(new PutObjectCommand({ Bucket: 'mpu', Key: 'src', Body: body }));
    const up = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mpu', Key: 'dst' }));
    const p1 = await s3.send(
      new UploadPartCopyCommand({
        Bucket: 'mpu',
        Key: 'dst',
        UploadId: up.UploadId,
        PartNumber: 1,
        CopySource: 'mpu/src',
        CopySourceRange: `bytes=0-${5 * MiB - 1}`,
      }),
    );
    const p2 = await s3.send(
      new UploadPartCopyCommand({
        Bucket: 'mpu',
        Key: 'dst',
        UploadId: up.UploadId,
        PartNumber: 2,
        CopySource: 'mpu/src',
        CopySourceRange: `bytes=${5 * MiB}-${6 * MiB - 1}`,
      }),
    );
    const bad = await failure(
      s3.send(
        new UploadPartCopyCommand({
          Bucket: 'mpu',
          Key: 'dst',
          UploadId: up.UploadId,
          PartNumber: 3,
          CopySource: 'mpu/src',
          CopySourceRange: `bytes=0-${7 * MiB}`,
        }),
      ),
    );
    // Past the source's end: RGW's 416 InvalidRange; a malformed range: 400 InvalidArgument.
    expect(bad).toMatchObject({ name: 'InvalidRange', status: 416 });
    const malformed = await failure(
      s3.send(
        new UploadPartCopyCommand({
          Bucket: 'mpu',
          Key: 'dst',
          UploadId: up.UploadId,
          PartNumber: 3,
          CopySource: 'mpu/src',
          CopySourceRange: 'bytes=9-2',
        }),
      ),
    );
    expect(malformed).toMatchObject({ name: 'InvalidArgument', status: 400 });
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'mpu',
        Key: 'dst',
        UploadId: up.UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.CopyPartResult?.ETag },
            { PartNumber: 2, ETag: p2.CopyPartResult?.ETag },
          ],
        },
      }),
    );
    expect(done.ETag).toMatch(/-2"$/);
    const got = Buffer.from(
      await ((
        await s3.send(new GetObjectCommand({ Bucket: 'mpu', Key: 'dst' }))
      ).Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
    );
    expect(got.equals(body)).toBe(true);
    // A repeated complete is answered as S3 answers it: the same object.
    const again = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'mpu',
        Key: 'dst',
        UploadId: up.UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.CopyPartResult?.ETag },
            { PartNumber: 2, ETag: p2.CopyPartResult?.ETag },
          ],
        },
      }),
    );
    expect(again.ETag).toBe(done.ETag);
    // Completed uploads are not listed, and take no more parts.
    expect(
      (await s3.send(new ListMultipartUploadsCommand({ Bucket: 'mpu' }))).Uploads ?? [],
    ).toEqual([]);
    const late = await failure(
      s3.send(
        new UploadPartCommand({
          Bucket: 'mpu',
          Key: 'dst',
          UploadId: up.UploadId,
          PartNumber: 3,
          Body: 'x',
        }),
      ),
    );
    expect(late.name).toBe('NoSuchUpload');
    const attrs = await s3.send(
      new GetObjectAttributesCommand({
        Bucket: 'mpu',
        Key: 'dst',
        ObjectAttributes: ['ObjectParts', 'ObjectSize', 'ETag'],
      }),
    );
    expect(attrs.ObjectSize).toBe(6 * MiB);
    expect(attrs.ObjectParts?.TotalPartsCount).toBe(2);
    const part2 = await s3.send(new GetObjectCommand({ Bucket: 'mpu', Key: 'dst', PartNumber: 2 }));
    expect(part2.ContentLength).toBe(MiB);
    expect(part2.PartsCount).toBe(2);
    // A part beyond the object's parts is RGW's 400 InvalidPart (AWS says 416 InvalidPartNumber).
    const beyond = await failure(
      s3.send(new GetObjectCommand({ Bucket: 'mpu', Key: 'dst', PartNumber: 3 })),
    );
    expect([beyond.name, beyond.status]).toEqual(['InvalidPart', 400]);
  });

  it('ListMultipartUploads: every field, prefix and delimiter, key and upload id markers', async () => {
    const ids: string[] = [];
    for (const Key of ['a/1', 'a/2', 'b', 'b'])
      ids.push(
        (await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mpu', Key })))
          .UploadId as string,
      );
    const all = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'mpu' }));
    expect(all.Uploads?.map((u) => u.Key)).toEqual(['a/1', 'a/2', 'b', 'b']);
    expect(all.Uploads?.[0]).toMatchObject({ StorageClass: 'STANDARD' });
    expect(all.Uploads?.[0]?.Initiator?.ID).toBeDefined();
    expect(all.Uploads?.[0]?.Owner?.ID).toBeDefined();
    expect(all.Uploads?.[0]?.Initiated).toBeInstanceOf(Date);
    const rolled = await s3.send(
      new ListMultipartUploadsCommand({ Bucket: 'mpu', Delimiter: '/' }),
    );
    expect(rolled.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/']);
    expect(rolled.Uploads?.map((u) => u.Key)).toEqual(['b', 'b']);
    const page = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'mpu', MaxUploads: 3 }));
    expect(page).toMatchObject({
      IsTruncated: true,
      NextKeyMarker: 'b',
      NextUploadIdMarker: ids[2],
    });
    const rest = await s3.send(
      new ListMultipartUploadsCommand({
        Bucket: 'mpu',
        KeyMarker: page.NextKeyMarker,
        UploadIdMarker: page.NextUploadIdMarker,
      }),
    );
    expect(rest.Uploads?.map((u) => u.UploadId)).toEqual([ids[3]]);
    const parts = await s3.send(
      new ListPartsCommand({ Bucket: 'mpu', Key: 'b', UploadId: ids[3] }),
    );
    expect(parts).toMatchObject({ StorageClass: 'STANDARD', IsTruncated: false });
    expect(parts.Initiator?.ID).toBeDefined();
  });
});

describe('S3 multipart completion lists', () => {
  it('CompleteMultipartUpload: descending part numbers are InvalidPartOrder; a part listed twice in a row counts once, with its last ETag (RGW)', async () => {
    const up = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mpu', Key: 'twice' }));
    const part = (Body: string) =>
      s3.send(
        new UploadPartCommand({
          Bucket: 'mpu',
          Key: 'twice',
          UploadId: up.UploadId,
          PartNumber: 1,
          Body,
        }),
      );
    const b = await part('BBBB');
    const a = await part('AAAA');
    const complete = (Parts: { PartNumber: number; ETag?: string }[]) =>
      failure(
        s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: 'mpu',
            Key: 'twice',
            UploadId: up.UploadId,
            MultipartUpload: { Parts },
          }),
        ),
      );
    expect(
      await complete([
        { PartNumber: 2, ETag: a.ETag },
        { PartNumber: 1, ETag: a.ETag },
      ]),
    ).toMatchObject({ name: 'InvalidPartOrder', status: 400 });
    // The last ETag listed for part 1 is the replaced upload's: no such part any more.
    expect(
      await complete([
        { PartNumber: 1, ETag: a.ETag },
        { PartNumber: 1, ETag: b.ETag },
      ]),
    ).toMatchObject({ name: 'InvalidPart', status: 400 });
    expect(
      (
        await complete([
          { PartNumber: 1, ETag: b.ETag },
          { PartNumber: 1, ETag: a.ETag },
        ])
      ).name,
    ).toBe('no error');
    const got = await s3.send(new GetObjectCommand({ Bucket: 'mpu', Key: 'twice' }));
    expect(await got.Body?.transformToString()).toBe('AAAA');
  });
});

describe('S3 tagging', () => {
  it('object tags: x-amz-tagging on write, Get/Put/DeleteObjectTagging, the count on GET', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: 'tags', Key: 'o', Body: 'o', Tagging: 'team=web&tier=gold' }),
    );
    const got = await s3.send(new GetObjectTaggingCommand({ Bucket: 'tags', Key: 'o' }));
    expect(got.TagSet).toEqual([
      { Key: 'team', Value: 'web' },
      { Key: 'tier', Value: 'gold' },
    ]);
    expect((await s3.send(new GetObjectCommand({ Bucket: 'tags', Key: 'o' }))).TagCount).toBe(2);
    await s3.send(
      new PutObjectTaggingCommand({
        Bucket: 'tags',
        Key: 'o',
        Tagging: { TagSet: [{ Key: 'x', Value: '1' }] },
      }),
    );
    expect(
      (await s3.send(new GetObjectTaggingCommand({ Bucket: 'tags', Key: 'o' }))).TagSet,
    ).toEqual([{ Key: 'x', Value: '1' }]);
    await s3.send(new DeleteObjectTaggingCommand({ Bucket: 'tags', Key: 'o' }));
    expect(
      (await s3.send(new GetObjectTaggingCommand({ Bucket: 'tags', Key: 'o' }))).TagSet,
    ).toEqual([]);
    // The object and its bytes stay.
    expect(
      await (
        await s3.send(new GetObjectCommand({ Bucket: 'tags', Key: 'o' }))
      ).Body?.transformToString(),
    ).toBe('o');
  });

  it('object tags: S3 limits (10 tags, 128-character keys, 256-character values) are InvalidTag', async () => {
    const set = (tags: { Key: string; Value: string }[]) =>
      failure(
        s3.send(
          new PutObjectTaggingCommand({ Bucket: 'tags', Key: 'o', Tagging: { TagSet: tags } }),
        ),
      );
    const many = Array.from({ length: 11 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
    expect((await set(many)).name).toBe('InvalidTag');
    expect((await set([{ Key: 'k'.repeat(129), Value: 'v' }])).name).toBe('InvalidTag');
    expect((await set([{ Key: 'k', Value: 'v'.repeat(257) }])).name).toBe('InvalidTag');
    expect((await set([{ Key: 'k'.repeat(128), Value: 'v'.repeat(256) }])).name).toBe('no error');
  });

  it('bucket tags: Put/Get/DeleteBucketTagging; none is NoSuchTagSet', async () => {
    const get = () => s3.send(new GetBucketTaggingCommand({ Bucket: 'tags' }));
    expect((await failure(get())).name).toBe('NoSuchTagSet');
    await s3.send(
      new PutBucketTaggingCommand({
        Bucket: 'tags',
        Tagging: { TagSet: [{ Key: 'env', Value: 'dev' }] },
      }),
    );
    expect((await get()).TagSet).toEqual([{ Key: 'env', Value: 'dev' }]);
    await s3.send(new DeleteBucketTaggingCommand({ Bucket: 'tags' }));
    expect((await failure(get())).name).toBe('NoSuchTagSet');
    await s3.send(new GetObjectCommand({ Bucket: 'tags', Key: 'o' }));
  });
});
