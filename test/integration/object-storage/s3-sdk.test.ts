import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;
let key: { id: number; access_key: string; secret_key: string };

async function errorName(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { name: string }).name;
  }
  return 'no error';
}

// The same suite on both blob backends: the local disk, and an external S3-compatible cluster
// (a second Stratus server with local storage, its bucket and key made through its API).
describe.each(['local', 's3'] as const)(
  'S3 data plane with @aws-sdk/client-s3 (%s blob backend)',
  (backend) => {
    beforeAll(async () => {
      t = await buildS3App(backend);
      const b = await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'alpha' });
      expect(b.status).toBe(200);
      const k = await t.post('/v4/object-storage/keys', { label: 'sdk' });
      expect(k.status).toBe(200);
      key = k.body;
      s3 = t.client(key);
    });
    afterAll(() => t.dispose());

    it('PutObject/GetObject: stores and returns the bytes, type, metadata and MD5 ETag', async () => {
      const put = await s3.send(
        new PutObjectCommand({
          Bucket: 'alpha',
          Key: 'docs/hello.txt',
          Body: 'hello world',
          ContentType: 'text/plain',
          Metadata: { colour: 'blue' },
        }),
      );
      expect(put.ETag).toBe('"5eb63bbbe01eeed093cb22bb8f5acdc3"');
      const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'docs/hello.txt' }));
      expect(await got.Body?.transformToString()).toBe('hello world');
      expect(got.ContentType).toBe('text/plain');
      expect(got.Metadata).toEqual({ colour: 'blue' });
      expect(got.ContentLength).toBe(11);
    });

    it('PutObject: a stream body goes through aws-chunked framing with a trailing checksum', async () => {
      const { Readable } = await import('node:stream');
      const chunks = [Buffer.alloc(70_000, 'x'), Buffer.alloc(70_000, 'y'), Buffer.from('end')];
      await s3.send(
        new PutObjectCommand({
          Bucket: 'alpha',
          Key: 'streamed.bin',
          Body: Readable.from(chunks),
          ContentLength: 140_003,
        }),
      );
      const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'streamed.bin' }));
      const bytes = Buffer.from(
        await (got.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
      );
      expect(bytes.equals(Buffer.concat(chunks))).toBe(true);
    });

    it('GetObject: a Range answers 206 with just those bytes', async () => {
      await s3.send(
        new PutObjectCommand({ Bucket: 'alpha', Key: 'range.bin', Body: '0123456789' }),
      );
      const r = await s3.send(
        new GetObjectCommand({ Bucket: 'alpha', Key: 'range.bin', Range: 'bytes=2-5' }),
      );
      expect(await r.Body?.transformToString()).toBe('2345');
      expect(r.ContentRange).toBe('bytes 2-5/10');
      const tail = await s3.send(
        new GetObjectCommand({ Bucket: 'alpha', Key: 'range.bin', Range: 'bytes=-3' }),
      );
      expect(await tail.Body?.transformToString()).toBe('789');
      expect(
        await errorName(
          s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'range.bin', Range: 'bytes=50-' })),
        ),
      ).toBe('InvalidRange');
    });

    it('HeadObject: size and ETag without the body; a missing key is NotFound', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'head.txt', Body: 'abc' }));
      const h = await s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'head.txt' }));
      expect(h.ContentLength).toBe(3);
      expect(h.ETag).toBe('"900150983cd24fb0d6963f7d28e17f72"');
      expect(
        await errorName(s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'nope' }))),
      ).toBe('NotFound');
    });

    it('GetObject: a missing key is NoSuchKey, a missing bucket NoSuchBucket', async () => {
      expect(
        await errorName(s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'missing' }))),
      ).toBe('NoSuchKey');
      expect(await errorName(s3.send(new GetObjectCommand({ Bucket: 'nobucket', Key: 'x' })))).toBe(
        'NoSuchBucket',
      );
    });

    it('ListObjectsV2: prefix and delimiter roll names into common prefixes, with paging', async () => {
      await s3.send(new CreateBucketCommand({ Bucket: 'listing' }));
      for (const k of ['a/1', 'a/2', 'b/1', 'c', 'd']) {
        await s3.send(new PutObjectCommand({ Bucket: 'listing', Key: k, Body: k }));
      }
      const top = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Delimiter: '/' }));
      expect(top.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/', 'b/']);
      expect(top.Contents?.map((o) => o.Key)).toEqual(['c', 'd']);
      const inA = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Prefix: 'a/' }));
      expect(inA.Contents?.map((o) => o.Key)).toEqual(['a/1', 'a/2']);
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({ Bucket: 'listing', MaxKeys: 2, ContinuationToken: token }),
        );
        seen.push(...(page.Contents ?? []).map((o) => o.Key as string));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      expect(seen).toEqual(['a/1', 'a/2', 'b/1', 'c', 'd']);
    });

    it('ListObjects (v1): marker paging', async () => {
      const p1 = await s3.send(new ListObjectsCommand({ Bucket: 'listing', MaxKeys: 3 }));
      expect(p1.Contents?.map((o) => o.Key)).toEqual(['a/1', 'a/2', 'b/1']);
      expect(p1.IsTruncated).toBe(true);
      const p2 = await s3.send(new ListObjectsCommand({ Bucket: 'listing', Marker: 'b/1' }));
      expect(p2.Contents?.map((o) => o.Key)).toEqual(['c', 'd']);
    });

    it("ListBuckets: the account's buckets in the cluster", async () => {
      const r = await s3.send(new ListBucketsCommand({}));
      expect(r.Buckets?.map((b) => b.Name)).toEqual(['alpha', 'listing']);
    });

    it('CopyObject: copies bytes and metadata', async () => {
      await s3.send(
        new CopyObjectCommand({
          Bucket: 'alpha',
          Key: 'copy.txt',
          CopySource: 'alpha/docs/hello.txt',
        }),
      );
      const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'copy.txt' }));
      expect(await got.Body?.transformToString()).toBe('hello world');
      expect(got.Metadata).toEqual({ colour: 'blue' });
    });

    it('DeleteObject and DeleteObjects: objects go away', async () => {
      await s3.send(new DeleteObjectCommand({ Bucket: 'alpha', Key: 'copy.txt' }));
      expect(
        await errorName(s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'copy.txt' }))),
      ).toBe('NotFound');
      const r = await s3.send(
        new DeleteObjectsCommand({
          Bucket: 'listing',
          Delete: { Objects: ['a/1', 'a/2', 'b/1', 'c', 'd'].map((Key) => ({ Key })) },
        }),
      );
      expect(r.Deleted?.length).toBe(5);
      const left = await s3.send(new ListObjectsV2Command({ Bucket: 'listing' }));
      expect(left.KeyCount).toBe(0);
    });

    it('DeleteBucket: refused while objects remain, then deletes the empty bucket', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'listing', Key: 'x', Body: 'x' }));
      expect(await errorName(s3.send(new DeleteBucketCommand({ Bucket: 'listing' })))).toBe(
        'BucketNotEmpty',
      );
      await s3.send(new DeleteObjectCommand({ Bucket: 'listing', Key: 'x' }));
      await s3.send(new DeleteBucketCommand({ Bucket: 'listing' }));
      expect(await errorName(s3.send(new HeadBucketCommand({ Bucket: 'listing' })))).toBe(
        'NotFound',
      );
    });

    it('multipart upload: three parts complete into one object with a multipart ETag', async () => {
      const MiB = 1024 * 1024;
      const parts = [Buffer.alloc(5 * MiB, 'a'), Buffer.alloc(5 * MiB, 'b'), Buffer.from('tail')];
      const { UploadId } = await s3.send(
        new CreateMultipartUploadCommand({
          Bucket: 'alpha',
          Key: 'big.bin',
          ContentType: 'application/x-test',
        }),
      );
      const done = [];
      for (const [i, body] of parts.entries()) {
        const r = await s3.send(
          new UploadPartCommand({
            Bucket: 'alpha',
            Key: 'big.bin',
            UploadId,
            PartNumber: i + 1,
            Body: body,
          }),
        );
        done.push({ PartNumber: i + 1, ETag: r.ETag });
      }
      const listed = await s3.send(
        new ListPartsCommand({ Bucket: 'alpha', Key: 'big.bin', UploadId }),
      );
      expect(listed.Parts?.map((p) => p.Size)).toEqual([5 * MiB, 5 * MiB, 4]);
      const c = await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'alpha',
          Key: 'big.bin',
          UploadId,
          MultipartUpload: { Parts: done },
        }),
      );
      expect(c.ETag).toMatch(/^"[0-9a-f]{32}-3"$/);
      const h = await s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'big.bin' }));
      expect(h.ContentLength).toBe(10 * MiB + 4);
      expect(h.ContentType).toBe('application/x-test');
      const span = await s3.send(
        new GetObjectCommand({
          Bucket: 'alpha',
          Key: 'big.bin',
          Range: `bytes=${5 * MiB - 2}-${5 * MiB + 1}`,
        }),
      );
      expect(await span.Body?.transformToString()).toBe('aabb');
      const end = await s3.send(
        new GetObjectCommand({ Bucket: 'alpha', Key: 'big.bin', Range: `bytes=${10 * MiB}-` }),
      );
      expect(await end.Body?.transformToString()).toBe('tail');
    });

    it('multipart upload: a small non-last part is EntityTooSmall; abort forgets the upload', async () => {
      const { UploadId } = await s3.send(
        new CreateMultipartUploadCommand({ Bucket: 'alpha', Key: 'm' }),
      );
      const p1 = await s3.send(
        new UploadPartCommand({
          Bucket: 'alpha',
          Key: 'm',
          UploadId,
          PartNumber: 1,
          Body: 'small',
        }),
      );
      const p2 = await s3.send(
        new UploadPartCommand({
          Bucket: 'alpha',
          Key: 'm',
          UploadId,
          PartNumber: 2,
          Body: 'small',
        }),
      );
      expect(
        await errorName(
          s3.send(
            new CompleteMultipartUploadCommand({
              Bucket: 'alpha',
              Key: 'm',
              UploadId,
              MultipartUpload: {
                Parts: [
                  { PartNumber: 1, ETag: p1.ETag },
                  { PartNumber: 2, ETag: p2.ETag },
                ],
              },
            }),
          ),
        ),
      ).toBe('EntityTooSmall');
      const { ListMultipartUploadsCommand, GetBucketVersioningCommand } = await import(
        '@aws-sdk/client-s3'
      );
      const open = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'alpha' }));
      expect(open.Uploads?.map((u) => [u.Key, u.UploadId])).toEqual([['m', UploadId]]);
      expect(
        (await s3.send(new GetBucketVersioningCommand({ Bucket: 'alpha' }))).Status,
      ).toBeUndefined();
      await s3.send(new AbortMultipartUploadCommand({ Bucket: 'alpha', Key: 'm', UploadId }));
      expect(
        (await s3.send(new ListMultipartUploadsCommand({ Bucket: 'alpha' }))).Uploads ?? [],
      ).toEqual([]);
      expect(
        await errorName(s3.send(new ListPartsCommand({ Bucket: 'alpha', Key: 'm', UploadId }))),
      ).toBe('NoSuchUpload');
    });

    it('SigV4: a wrong secret gets SignatureDoesNotMatch; an unknown key InvalidAccessKeyId', async () => {
      const bad = t.client({ access_key: key.access_key, secret_key: 'x'.repeat(40) });
      expect(await errorName(bad.send(new ListBucketsCommand({})))).toBe('SignatureDoesNotMatch');
      const unknown = t.client({ access_key: 'NOSUCHKEY00000000000', secret_key: 'x' });
      expect(await errorName(unknown.send(new ListBucketsCommand({})))).toBe('InvalidAccessKeyId');
    });

    it('SigV4: a revoked key is refused', async () => {
      const k = await t.post('/v4/object-storage/keys', { label: 'short-lived' });
      const c = t.client(k.body);
      await c.send(new ListBucketsCommand({}));
      await t.del(`/v4/object-storage/keys/${k.body.id}`);
      expect(await errorName(c.send(new ListBucketsCommand({})))).toBe('InvalidAccessKeyId');
    });

    it('presigned GET and PUT (s3-request-presigner) work with fetch', async () => {
      const putUrl = await getSignedUrl(
        s3,
        new PutObjectCommand({ Bucket: 'alpha', Key: 'signed.txt', ContentType: 'text/plain' }),
        { expiresIn: 600 },
      );
      const put = await fetch(putUrl, {
        method: 'PUT',
        body: 'via presigned put',
        headers: { 'content-type': 'text/plain' },
      });
      expect(put.status).toBe(200);
      const getUrl = await getSignedUrl(
        s3,
        new GetObjectCommand({ Bucket: 'alpha', Key: 'signed.txt' }),
        {
          expiresIn: 600,
        },
      );
      const got = await fetch(getUrl);
      expect(got.status).toBe(200);
      expect(await got.text()).toBe('via presigned put');
      const tampered = await fetch(getUrl.replace('signed.txt', 'other.txt'));
      expect(tampered.status).toBe(403);
      expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    });

    it('presigned GET: refused once expired', async () => {
      const url = await getSignedUrl(
        s3,
        new GetObjectCommand({ Bucket: 'alpha', Key: 'signed.txt' }),
        {
          expiresIn: 60,
        },
      );
      t.clock.set(Date.now() + 61_000);
      const r = await fetch(url);
      expect(r.status).toBe(403);
      expect(await r.text()).toContain('Request has expired');
    });

    it('limited key: a key limited to one bucket is refused on another', async () => {
      await s3.send(new CreateBucketCommand({ Bucket: 'beta' }));
      await s3.send(new PutObjectCommand({ Bucket: 'beta', Key: 'b.txt', Body: 'b' }));
      const k = await t.post('/v4/object-storage/keys', {
        label: 'limited',
        bucket_access: [{ cluster: CLUSTER, bucket_name: 'alpha', permissions: 'read_write' }],
      });
      expect(k.status).toBe(200);
      const limited = t.client(k.body);
      await limited.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'mine.txt', Body: 'mine' }));
      expect(
        await errorName(limited.send(new GetObjectCommand({ Bucket: 'beta', Key: 'b.txt' }))),
      ).toBe('AccessDenied');
      expect(
        await errorName(
          limited.send(new PutObjectCommand({ Bucket: 'beta', Key: 'x', Body: 'x' })),
        ),
      ).toBe('AccessDenied');
    });

    it('public read: an anonymous GET of a public-read object returns its bytes', async () => {
      t.clock.set(Date.now());
      await s3.send(
        new PutObjectCommand({
          Bucket: 'alpha',
          Key: 'open.txt',
          Body: 'for everyone',
          ACL: 'public-read',
        }),
      );
      const r = await fetch(`${t.endpoint}/alpha/open.txt`);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe('for everyone');
      expect((await fetch(`${t.endpoint}/alpha/mine.txt`)).status).toBe(403);
    });

    it('blob backend: the bytes are kept where the backend says, never on both', async () => {
      const listed: string[] = [];
      for await (const k of t.ctx.areas.objectStorage.data.blobs.list()) listed.push(k);
      expect(listed.length).toBeGreaterThan(0);
      const onCluster = await t.cluster?.app.get(
        '/v4/object-storage/buckets/us-east-1/stratus-blobs/object-list?page_size=500',
      );
      if (backend === 's3') {
        const names = ((onCluster?.body.data ?? []) as { name: string }[]).map((o) =>
          o.name.split('/').pop(),
        );
        for (const k of listed) expect(names).toContain(k);
        const { readdir } = await import('node:fs/promises');
        expect(await readdir(t.dataDir).catch(() => [])).not.toContain('objects');
      } else {
        expect(onCluster).toBeUndefined();
      }
    });
  },
);
