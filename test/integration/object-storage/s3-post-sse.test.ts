import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;
let key: { access_key: string; secret_key: string };

beforeAll(async () => {
  t = await buildS3App();
  key = (await t.post('/v4/object-storage/keys', { label: 'k' })).body;
  s3 = t.client(key);
  for (const label of ['form', 'open', 'enc'])
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
  await t.put(`/v4/object-storage/buckets/${CLUSTER}/open/access`, { acl: 'public-read-write' });
});
afterAll(() => t.dispose());

/** A browser form upload: the fields in order, the file last. */
function post(bucket: string, fields: [string, string][], file = 'hello') {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  form.append('file', new Blob([file]), 'local.txt');
  return fetch(`${t.endpoint}/${bucket}`, { method: 'POST', body: form, redirect: 'manual' });
}

function signedV2(conditions: unknown[], expiresInMs = 600_000) {
  const policy = Buffer.from(
    JSON.stringify({
      expiration: new Date(t.clock.nowMs() + expiresInMs).toISOString(),
      conditions,
    }),
  ).toString('base64');
  const signature = createHmac('sha1', key.secret_key).update(policy).digest('base64');
  return [
    ['AWSAccessKeyId', key.access_key],
    ['policy', policy],
    ['signature', signature],
  ] as [string, string][];
}

describe('S3 POST Object (browser form uploads)', () => {
  const base = [
    { bucket: 'form' },
    ['starts-with', '$key', 'up/'],
    { acl: 'private' },
    ['starts-with', '$Content-Type', 'text/'],
    ['content-length-range', 0, 64],
  ];

  it('PostObject: a V2-signed policy uploads the file; the file name fills the key; 204 by default', async () => {
    const r = await post('form', [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: S3's placeholder for the file name.
      ['key', 'up/${filename}'],
      ['acl', 'private'],
      ['Content-Type', 'text/plain'],
      ...signedV2(base),
    ]);
    expect(r.status).toBe(204);
    expect(r.headers.get('etag')).toBe(`"${createHash('md5').update('hello').digest('hex')}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'form', Key: 'up/local.txt' }));
    expect(await got.Body?.transformToString()).toBe('hello');
    expect(got.ContentType).toBe('text/plain');
  });

  it('PostObject: a V4-signed policy, tags, success_action_status 201 with a document', async () => {
    const date = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const day = date.slice(0, 8);
    const credential = `${key.access_key}/${day}/${CLUSTER}/s3/aws4_request`;
    const conditions = [
      ...base,
      ['eq', '$success_action_status', '201'],
      ['starts-with', '$tagging', ''],
      { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
      { 'x-amz-credential': credential },
      { 'x-amz-date': date },
    ];
    const policy = Buffer.from(
      JSON.stringify({ expiration: new Date(Date.now() + 600_000).toISOString(), conditions }),
    ).toString('base64');
    const h = (k: string | Buffer, d: string) => createHmac('sha256', k).update(d).digest();
    const signing = h(h(h(h(`AWS4${key.secret_key}`, day), CLUSTER), 's3'), 'aws4_request');
    const r = await post('form', [
      ['key', 'up/v4.txt'],
      ['acl', 'private'],
      ['Content-Type', 'text/plain'],
      ['success_action_status', '201'],
      ['tagging', '<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>'],
      ['x-amz-algorithm', 'AWS4-HMAC-SHA256'],
      ['x-amz-credential', credential],
      ['x-amz-date', date],
      ['policy', policy],
      ['x-amz-signature', createHmac('sha256', signing).update(policy).digest('hex')],
    ]);
    expect(r.status).toBe(201);
    const doc = await r.text();
    expect(doc).toContain('<Key>up/v4.txt</Key>');
    // No namespace on the document, as S3 and RGW write it (clients look `Key` up unqualified).
    expect(doc).toContain('<PostResponse>');
    const tags = await s3.send(new GetObjectTaggingCommand({ Bucket: 'form', Key: 'up/v4.txt' }));
    expect(tags.TagSet).toEqual([{ Key: 'k', Value: 'v' }]);
  });

  it('PostObject: policy failures (condition, extra field, size, expiry, signature) are refused and store nothing', async () => {
    const fields = (extra: [string, string][] = []): [string, string][] => [
      ['key', 'up/bad.txt'],
      ['acl', 'private'],
      ['Content-Type', 'text/plain'],
      ...extra,
    ];
    expect(
      (await post('form', [...fields([['Content-Type', 'image/png']]), ...signedV2(base)])).status,
    ).toBe(403);
    expect(
      (await post('form', [...fields([['x-amz-meta-x', 'y']]), ...signedV2(base)])).status,
    ).toBe(403);
    expect((await post('form', [...fields(), ...signedV2(base)], 'x'.repeat(65))).status).toBe(400);
    expect((await post('form', [...fields(), ...signedV2(base, -1000)])).status).toBe(403);
    const forged = signedV2(base).map(([k, v]): [string, string] => [
      k,
      k === 'signature' ? 'AAAA' : v,
    ]);
    expect((await post('form', [...fields(), ...forged])).status).toBe(403);
    expect((await post('form', [['acl', 'private'], ...signedV2(base)])).status).toBe(400);
    expect(
      (await failure(s3.send(new HeadObjectCommand({ Bucket: 'form', Key: 'up/bad.txt' })))).status,
    ).toBe(404);
  });

  it('PostObject: without a policy only a public-read-write bucket takes the upload; redirect with 303', async () => {
    expect((await post('form', [['key', 'anon.txt']])).status).toBe(403);
    const r = await post('open', [
      ['key', 'anon.txt'],
      ['success_action_redirect', 'https://app.example/done'],
    ]);
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toMatch(
      /^https:\/\/app\.example\/done\?bucket=open&key=anon\.txt&etag=%22[0-9a-f]{32}%22$/,
    );
  });
});

const sseKey = () => {
  const k = randomBytes(32);
  return {
    SSECustomerAlgorithm: 'AES256',
    SSECustomerKey: k.toString('base64'),
    SSECustomerKeyMD5: createHash('md5').update(k).digest('base64'),
  };
};

describe('S3 server-side encryption with customer keys (SSE-C)', () => {
  it('PutObject/GetObject: stored encrypted; read back with the key; without it or with another 400', async () => {
    const k = sseKey();
    const body = randomBytes(100_000);
    await s3.send(new PutObjectCommand({ Bucket: 'enc', Key: 'secret', Body: body, ...k }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'enc', Key: 'secret', ...k }));
    expect(
      Buffer.from(
        await (got.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
      ).equals(body),
    ).toBe(true);
    expect(got.SSECustomerKeyMD5).toBe(k.SSECustomerKeyMD5);
    const ranged = await s3.send(
      new GetObjectCommand({ Bucket: 'enc', Key: 'secret', Range: 'bytes=1000-1099', ...k }),
    );
    expect(
      Buffer.from(
        await (ranged.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
      ).equals(body.subarray(1000, 1100)),
    ).toBe(true);
    expect(
      (await failure(s3.send(new GetObjectCommand({ Bucket: 'enc', Key: 'secret' })))).status,
    ).toBe(400);
    expect(
      (await failure(s3.send(new HeadObjectCommand({ Bucket: 'enc', Key: 'secret' })))).status,
    ).toBe(400);
    expect(
      await failure(s3.send(new GetObjectCommand({ Bucket: 'enc', Key: 'secret', ...sseKey() }))),
    ).toMatchObject({ status: 400, name: 'InvalidArgument' });
    // The bytes at rest are not the plain bytes.
    const row = await t.ctx.db.db
      .selectFrom('obj_objects')
      .select('blobs')
      .where('name', '=', 'secret')
      .executeTakeFirstOrThrow();
    const blob = (JSON.parse(row.blobs) as { key: string }[])[0]?.key as string;
    const stream = await t.ctx.areas.objectStorage.data.blobs.get(blob);
    const stored: Buffer[] = [];
    for await (const c of stream) stored.push(c as Buffer);
    expect(Buffer.concat(stored).equals(body)).toBe(false);
    expect(Buffer.concat(stored).length).toBe(body.length);
  });

  it('SSE-C multipart: every part with the upload key; copy re-encrypts under another key', async () => {
    const k = sseKey();
    const up = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'enc', Key: 'mp', ...k }));
    const part1 = Buffer.alloc(5 * 1024 * 1024, 'p');
    const without = await failure(
      s3.send(
        new UploadPartCommand({
          Bucket: 'enc',
          Key: 'mp',
          UploadId: up.UploadId,
          PartNumber: 1,
          Body: part1,
        }),
      ),
    );
    expect(without.status).toBe(400);
    const p1 = await s3.send(
      new UploadPartCommand({
        Bucket: 'enc',
        Key: 'mp',
        UploadId: up.UploadId,
        PartNumber: 1,
        Body: part1,
        ...k,
      }),
    );
    const p2 = await s3.send(
      new UploadPartCommand({
        Bucket: 'enc',
        Key: 'mp',
        UploadId: up.UploadId,
        PartNumber: 2,
        Body: 'tail',
        ...k,
      }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'enc',
        Key: 'mp',
        UploadId: up.UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.ETag },
          ],
        },
      }),
    );
    const tail = await s3.send(
      new GetObjectCommand({ Bucket: 'enc', Key: 'mp', Range: `bytes=${part1.length - 2}-`, ...k }),
    );
    expect(await tail.Body?.transformToString()).toBe('pptail');
    const k2 = sseKey();
    await s3.send(
      new CopyObjectCommand({
        Bucket: 'enc',
        Key: 'mp-copy',
        CopySource: 'enc/mp',
        CopySourceSSECustomerAlgorithm: 'AES256',
        CopySourceSSECustomerKey: k.SSECustomerKey,
        CopySourceSSECustomerKeyMD5: k.SSECustomerKeyMD5,
        ...k2,
      }),
    );
    const copy = await s3.send(
      new GetObjectCommand({ Bucket: 'enc', Key: 'mp-copy', Range: 'bytes=-4', ...k2 }),
    );
    expect(await copy.Body?.transformToString()).toBe('tail');
    // A part the object does not have is told before the key is asked for (RGW).
    expect(
      await failure(s3.send(new GetObjectCommand({ Bucket: 'enc', Key: 'mp', PartNumber: 5 }))),
    ).toMatchObject({ name: 'InvalidPart', status: 400 });
    expect(
      (await failure(s3.send(new GetObjectCommand({ Bucket: 'enc', Key: 'mp', PartNumber: 2 }))))
        .status,
    ).toBe(400);
  });

  it('PostObject with SSE-C fields: stored under the form key and read back with it; the key MD5 is required', async () => {
    const k = sseKey();
    const sse: [string, string][] = [
      ['x-amz-server-side-encryption-customer-algorithm', k.SSECustomerAlgorithm],
      ['x-amz-server-side-encryption-customer-key', k.SSECustomerKey],
      ['x-amz-server-side-encryption-customer-key-md5', k.SSECustomerKeyMD5],
    ];
    const form = (fields: [string, string][]) =>
      post('enc', [
        ['key', 'up/sealed.txt'],
        ['Content-Type', 'text/plain'],
        ...fields,
        ...signedV2([
          { bucket: 'enc' },
          ['starts-with', '$key', 'up/'],
          ['starts-with', '$Content-Type', ''],
          ...fields.map(([n]) => ['starts-with', `$${n}`, '']),
        ]),
      ]);
    const noMd5 = await form(sse.slice(0, 2));
    expect(noMd5.status).toBe(400);
    expect(await noMd5.text()).toContain('InvalidArgument');
    const r = await form(sse);
    expect(r.status).toBe(204);
    expect(r.headers.get('x-amz-server-side-encryption-customer-key-md5')).toBe(
      k.SSECustomerKeyMD5,
    );
    expect(
      (await failure(s3.send(new GetObjectCommand({ Bucket: 'enc', Key: 'up/sealed.txt' }))))
        .status,
    ).toBe(400);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'enc', Key: 'up/sealed.txt', ...k }));
    expect(await got.Body?.transformToString()).toBe('hello');
  });

  it('PutObject: encryption headers that contradict each other or name no method are 400 InvalidArgument', async () => {
    const put = (o: Record<string, unknown>) =>
      failure(s3.send(new PutObjectCommand({ Bucket: 'enc', Key: 'bad', Body: 'x', ...o })));
    for (const o of [
      { ServerSideEncryption: 'AES256', ...sseKey() },
      { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: 'k', ...sseKey() },
      { ServerSideEncryption: 'AES256', SSEKMSKeyId: 'k' },
      { ServerSideEncryption: 'aes:kms' },
    ])
      expect(await put(o)).toMatchObject({ status: 400, name: 'InvalidArgument' });
    expect(
      (await failure(s3.send(new HeadObjectCommand({ Bucket: 'enc', Key: 'bad' })))).status,
    ).toBe(404);
  });

  it('SSE-S3 and SSE-KMS headers are refused by name (501), never accepted and dropped', async () => {
    const s3sse = await failure(
      s3.send(
        new PutObjectCommand({
          Bucket: 'enc',
          Key: 'x',
          Body: 'x',
          ServerSideEncryption: 'AES256',
        }),
      ),
    );
    expect(s3sse).toMatchObject({ name: 'NotImplemented', status: 501 });
    expect(s3sse.message).toContain('x-amz-server-side-encryption');
    const kms = await failure(
      s3.send(
        new PutObjectCommand({
          Bucket: 'enc',
          Key: 'x',
          Body: 'x',
          ServerSideEncryption: 'aws:kms',
          SSEKMSKeyId: 'k',
        }),
      ),
    );
    expect(kms.status).toBe(501);
    expect(
      (await failure(s3.send(new HeadObjectCommand({ Bucket: 'enc', Key: 'x' })))).status,
    ).toBe(404);
  });
});
