import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;

const bucket = async (label: string, versioning?: 'Enabled' | 'Suspended') => {
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
  if (versioning)
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: label,
        VersioningConfiguration: { Status: versioning },
      }),
    );
};
const put = async (Bucket: string, Key: string, Body: string) =>
  s3.send(new PutObjectCommand({ Bucket, Key, Body }));
const text = async (Bucket: string, Key: string, VersionId?: string) =>
  (await s3.send(new GetObjectCommand({ Bucket, Key, VersionId }))).Body?.transformToString();

beforeAll(async () => {
  t = await buildS3App();
  s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
});
afterAll(() => t.dispose());

describe('S3 versioning', () => {
  it('GetBucketVersioning: no status until set; PutBucketVersioning enables and suspends', async () => {
    await bucket('v-state');
    expect(
      (await s3.send(new GetBucketVersioningCommand({ Bucket: 'v-state' }))).Status,
    ).toBeUndefined();
    for (const Status of ['Enabled', 'Suspended'] as const) {
      await s3.send(
        new PutBucketVersioningCommand({ Bucket: 'v-state', VersioningConfiguration: { Status } }),
      );
      expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'v-state' }))).Status).toBe(
        Status,
      );
    }
  });

  it('PutBucketVersioning: suspending a bucket that never had versioning shows it Suspended (RGW)', async () => {
    await bucket('v-never', 'Suspended');
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'v-never' }))).Status).toBe(
      'Suspended',
    );
  });

  it('PutObject, CopyObject, CompleteMultipartUpload: a write of the null version (suspended) names no version', async () => {
    await bucket('v-susp-w', 'Suspended');
    expect((await put('v-susp-w', 'a', 'a')).VersionId).toBeUndefined();
    const copy = await s3.send(
      new CopyObjectCommand({ Bucket: 'v-susp-w', Key: 'b', CopySource: 'v-susp-w/a' }),
    );
    expect(copy.VersionId).toBeUndefined();
    const up = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'v-susp-w', Key: 'm' }));
    const p = await s3.send(
      new UploadPartCommand({
        Bucket: 'v-susp-w',
        Key: 'm',
        UploadId: up.UploadId,
        PartNumber: 1,
        Body: 'm',
      }),
    );
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'v-susp-w',
        Key: 'm',
        UploadId: up.UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p.ETag }] },
      }),
    );
    expect(done.VersionId).toBeUndefined();
    // Enabled again: each write names its version.
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: 'v-susp-w',
        VersioningConfiguration: { Status: 'Enabled' },
      }),
    );
    expect((await put('v-susp-w', 'a', 'a2')).VersionId).toMatch(/.+/);
    expect((await put('v-susp-w', 'a', 'a2')).VersionId).not.toBe('null');
  });

  it('PutBucketVersioning: MFA delete is refused by name (501), the state unchanged', async () => {
    await bucket('v-mfa');
    const e = await failure(
      s3.send(
        new PutBucketVersioningCommand({
          Bucket: 'v-mfa',
          VersioningConfiguration: { Status: 'Enabled', MFADelete: 'Enabled' },
        }),
      ),
    );
    expect(e).toMatchObject({ name: 'NotImplemented', status: 501 });
    expect(e.message).toContain('MFA delete');
    expect(
      (await s3.send(new GetBucketVersioningCommand({ Bucket: 'v-mfa' }))).Status,
    ).toBeUndefined();
  });

  it('PutObject: each write is a version with its own id; GET and HEAD by version id', async () => {
    await bucket('v-put', 'Enabled');
    const a = await put('v-put', 'doc', 'one');
    const b = await put('v-put', 'doc', 'two');
    expect(a.VersionId).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(b.VersionId).not.toBe(a.VersionId);
    expect(await text('v-put', 'doc')).toBe('two');
    expect(await text('v-put', 'doc', a.VersionId)).toBe('one');
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: 'v-put', Key: 'doc', VersionId: a.VersionId }),
    );
    expect(head.VersionId).toBe(a.VersionId);
    expect(head.ContentLength).toBe(3);
    expect((await failure(text('v-put', 'doc', 'no-such-version'))).name).toBe('NoSuchVersion');
  });

  it('DeleteObject: a delete marker hides the object; deleting the marker brings it back', async () => {
    await bucket('v-del', 'Enabled');
    const a = await put('v-del', 'doc', 'kept');
    const del = await s3.send(new DeleteObjectCommand({ Bucket: 'v-del', Key: 'doc' }));
    expect(del.DeleteMarker).toBe(true);
    expect(del.VersionId).toBeDefined();
    const gone = await failure(text('v-del', 'doc'));
    expect(gone).toMatchObject({ name: 'NoSuchKey', status: 404 });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'v-del' }));
    expect(listed.Contents ?? []).toEqual([]);
    // The marker itself asked by id: 405, as S3 answers.
    const onMarker = await failure(text('v-del', 'doc', del.VersionId));
    expect(onMarker.status).toBe(405);
    expect(await text('v-del', 'doc', a.VersionId)).toBe('kept');
    const undelete = await s3.send(
      new DeleteObjectCommand({ Bucket: 'v-del', Key: 'doc', VersionId: del.VersionId }),
    );
    expect(undelete.DeleteMarker).toBe(true);
    expect(await text('v-del', 'doc')).toBe('kept');
  });

  it('DeleteObject with a version id removes that version for good; the next newest is current', async () => {
    await bucket('v-perm', 'Enabled');
    const a = await put('v-perm', 'doc', 'old');
    const b = await put('v-perm', 'doc', 'new');
    await s3.send(
      new DeleteObjectCommand({ Bucket: 'v-perm', Key: 'doc', VersionId: b.VersionId }),
    );
    expect(await text('v-perm', 'doc')).toBe('old');
    const v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'v-perm' }));
    expect(v.Versions?.map((x) => [x.VersionId, x.IsLatest])).toEqual([[a.VersionId, true]]);
  });

  it('ListObjectVersions: versions newest first, delete markers, latest flags, key and version markers', async () => {
    await bucket('v-list', 'Enabled');
    const a1 = await put('v-list', 'a', '1');
    const a2 = await put('v-list', 'a', '22');
    const m = await s3.send(new DeleteObjectCommand({ Bucket: 'v-list', Key: 'a' }));
    const b1 = await put('v-list', 'b', '333');
    const all = await s3.send(new ListObjectVersionsCommand({ Bucket: 'v-list' }));
    expect(all.Versions?.map((v) => [v.Key, v.VersionId, v.IsLatest, v.Size])).toEqual([
      ['a', a2.VersionId, false, 2],
      ['a', a1.VersionId, false, 1],
      ['b', b1.VersionId, true, 3],
    ]);
    expect(all.DeleteMarkers?.map((d) => [d.Key, d.VersionId, d.IsLatest])).toEqual([
      ['a', m.VersionId, true],
    ]);
    const page1 = await s3.send(new ListObjectVersionsCommand({ Bucket: 'v-list', MaxKeys: 2 }));
    expect(page1.IsTruncated).toBe(true);
    expect(page1.NextKeyMarker).toBe('a');
    expect(page1.NextVersionIdMarker).toBe(a2.VersionId);
    const page2 = await s3.send(
      new ListObjectVersionsCommand({
        Bucket: 'v-list',
        MaxKeys: 2,
        KeyMarker: page1.NextKeyMarker,
        VersionIdMarker: page1.NextVersionIdMarker,
      }),
    );
    expect(page2.Versions?.map((v) => v.VersionId)).toEqual([a1.VersionId, b1.VersionId]);
    expect(page2.IsTruncated).toBe(false);
  });

  it('ListObjectVersions: an unversioned bucket lists each object as version null (clean-up tools)', async () => {
    await bucket('v-none');
    await put('v-none', 'x', 'x');
    await put('v-none', 'x', 'xx');
    const v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'v-none' }));
    expect(v.Versions?.map((x) => [x.Key, x.VersionId, x.IsLatest, x.Size])).toEqual([
      ['x', 'null', true, 2],
    ]);
    // The way clean-up tools empty a bucket: delete what ListObjectVersions names.
    await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'v-none',
        Delete: { Objects: [{ Key: 'x', VersionId: 'null' }] },
      }),
    );
    await s3.send(new DeleteBucketCommand({ Bucket: 'v-none' }));
  });

  it('Suspended: writes replace the null version; a delete leaves a null delete marker; old versions stay', async () => {
    await bucket('v-susp', 'Enabled');
    const kept = await put('v-susp', 'doc', 'versioned');
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: 'v-susp',
        VersioningConfiguration: { Status: 'Suspended' },
      }),
    );
    expect((await put('v-susp', 'doc', 'n1')).VersionId).toBeUndefined(); // the null version: no id named (RGW, S3)
    expect((await put('v-susp', 'doc', 'n2')).VersionId).toBeUndefined();
    let v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'v-susp' }));
    expect(v.Versions?.map((x) => x.VersionId)).toEqual(['null', kept.VersionId]);
    const del = await s3.send(new DeleteObjectCommand({ Bucket: 'v-susp', Key: 'doc' }));
    expect(del).toMatchObject({ DeleteMarker: true, VersionId: 'null' });
    v = await s3.send(new ListObjectVersionsCommand({ Bucket: 'v-susp' }));
    expect(v.Versions?.map((x) => x.VersionId)).toEqual([kept.VersionId]);
    expect(v.DeleteMarkers?.map((x) => x.VersionId)).toEqual(['null']);
  });

  it('CopyObject: copies a named version; the copy is a new version of the target', async () => {
    await bucket('v-copy', 'Enabled');
    const a = await put('v-copy', 'src', 'first');
    await put('v-copy', 'src', 'second');
    const c = await s3.send(
      new CopyObjectCommand({
        Bucket: 'v-copy',
        Key: 'dst',
        CopySource: `v-copy/src?versionId=${a.VersionId}`,
      }),
    );
    expect(c.CopySourceVersionId).toBe(a.VersionId);
    expect(c.VersionId).toBeDefined();
    expect(await text('v-copy', 'dst')).toBe('first');
  });

  it('DeleteBucket: a bucket holding only old versions or markers is not empty', async () => {
    await bucket('v-full', 'Enabled');
    await put('v-full', 'doc', 'x');
    await s3.send(new DeleteObjectCommand({ Bucket: 'v-full', Key: 'doc' }));
    expect((await failure(s3.send(new DeleteBucketCommand({ Bucket: 'v-full' })))).name).toBe(
      'BucketNotEmpty',
    );
    const size = await t.get(`/v4/object-storage/buckets/${CLUSTER}/v-full`);
    expect(size.body).toMatchObject({ objects: 2, size: 1 });
  });
});
