import { createHmac } from 'node:crypto';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutBucketAclCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;
let key: { access_key: string; secret_key: string };

beforeAll(async () => {
  t = await buildS3App('local');
  key = (await t.post('/v4/object-storage/keys', { label: 'k' })).body;
  s3 = t.client(key);
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'edge' });
  await s3.send(new PutObjectCommand({ Bucket: 'edge', Key: 'hello.txt', Body: 'hello' }));
});
afterAll(() => t.dispose());

/** A Signature V2 (header) request. */
function v2(method: string, path: string, headers: Record<string, string> = {}, resource = path) {
  const amz = Object.keys(headers)
    .filter((h) => h.startsWith('x-amz-'))
    .sort()
    .map((h) => `${h}:${headers[h]}\n`)
    .join('');
  const date = headers.date ?? '';
  const toSign = `${method}\n${headers['content-md5'] ?? ''}\n${headers['content-type'] ?? ''}\n${headers['x-amz-date'] ? '' : date}\n${amz}${resource}`;
  const sig = createHmac('sha1', key.secret_key).update(toSign).digest('base64');
  return fetch(`${t.endpoint}${path}`, {
    method,
    headers: { ...headers, authorization: `AWS ${key.access_key}:${sig}` },
  });
}

const v2Url = (path: string, expires: number) => {
  const sig = createHmac('sha1', key.secret_key)
    .update(`GET\n\n\n${expires}\n${path}`)
    .digest('base64');
  return `${t.endpoint}${path}?AWSAccessKeyId=${key.access_key}&Expires=${expires}&Signature=${encodeURIComponent(sig)}`;
};

const nowHttp = () => new Date(t.clock.nowMs()).toUTCString();

describe('S3 signatures', () => {
  it('Signature V2: the request time is checked (15 minutes); no date is refused', async () => {
    expect((await v2('GET', '/edge/hello.txt', { date: nowHttp() })).status).toBe(200);
    const old = await v2('GET', '/edge/hello.txt', { date: 'Tue, 01 Jan 2019 00:00:00 GMT' });
    expect(old.status).toBe(403);
    expect(await old.text()).toContain('<Code>RequestTimeTooSkewed</Code>');
    const later = new Date(t.clock.nowMs() + 16 * 60_000).toUTCString();
    expect((await v2('GET', '/edge/hello.txt', { date: later })).status).toBe(403);
    const none = await v2('GET', '/edge/hello.txt');
    expect(none.status).toBe(403);
    expect(await none.text()).toContain('<Code>AccessDenied</Code>');
    expect((await v2('GET', '/edge/hello.txt', { 'x-amz-date': nowHttp() })).status).toBe(200);
  });

  it('Signature V2: bucket-level requests verify with the resource signed as /bucket/', async () => {
    const list = await v2('GET', '/edge', { date: nowHttp() }, '/edge/');
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('<Key>hello.txt</Key>');
    expect((await v2('GET', '/edge?acl', { date: nowHttp() }, '/edge/?acl')).status).toBe(200);
  });

  it('Signature V2 pre-signed URLs live at most 7 days, like SigV4 ones (403 beyond, as RGW)', async () => {
    const now = Math.floor(t.clock.nowMs() / 1000);
    expect((await fetch(v2Url('/edge/hello.txt', now + 3600))).status).toBe(200);
    const long = await fetch(v2Url('/edge/hello.txt', now + 8 * 86_400));
    expect(long.status).toBe(403);
    expect(await long.text()).toContain('<Code>AccessDenied</Code>');
    expect((await fetch(v2Url('/edge/hello.txt', now - 1))).status).toBe(403);
  });

  it('SigV4: a signature for another region is AuthorizationHeaderMalformed; `auto` (Terraform) is taken', async () => {
    const other = new S3Client({
      endpoint: t.endpoint,
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: key.access_key, secretAccessKey: key.secret_key },
      followRegionRedirects: false,
    });
    const e = await failure(
      other.send(new HeadObjectCommand({ Bucket: 'edge', Key: 'hello.txt' })),
    );
    expect(e.status).toBe(400);
    const get = await failure(
      other.send(new GetObjectCommand({ Bucket: 'edge', Key: 'hello.txt' })),
    );
    expect(get.name).toBe('AuthorizationHeaderMalformed');
    other.destroy();
    const auto = new S3Client({
      endpoint: t.endpoint,
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: key.access_key, secretAccessKey: key.secret_key },
    });
    await auto.send(new HeadObjectCommand({ Bucket: 'edge', Key: 'hello.txt' }));
    auto.destroy();
  });

  it('SigV4: non-ASCII user metadata verifies; its bytes come back as they were sent (as RGW)', async () => {
    await s3.send(
      new PutObjectCommand({
        Bucket: 'edge',
        Key: 'meta',
        Body: 'm',
        Metadata: { note: 'Hello Wörld é' },
      }),
    );
    const h = await s3.send(new HeadObjectCommand({ Bucket: 'edge', Key: 'meta' }));
    // The SDK sent UTF-8 bytes; Node's client reads header bytes as latin-1.
    expect(Buffer.from(h.Metadata?.note ?? '', 'latin1').toString('utf8')).toBe('Hello Wörld é');
  });

  it('pre-signed SigV4: X-Amz-Expires beyond a week or negative is refused as expired (403, as RGW)', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'edge', Key: 'hello.txt' }), {
      expiresIn: 60,
    });
    const with_ = (v: string) => url.replace(/X-Amz-Expires=\d+/, `X-Amz-Expires=${v}`);
    for (const v of ['604801', '-1']) {
      const r = await fetch(with_(v));
      expect(r.status, v).toBe(403);
      expect(await r.text()).toContain('<Code>AccessDenied</Code>');
    }
    expect((await fetch(with_('abc'))).status).toBe(400);
    expect((await fetch(url)).status).toBe(200);
    t.clock.set(Date.now() + 61_000);
    expect((await fetch(url)).status).toBe(403);
    t.clock.set(Date.now());
  });
});

describe('S3 buckets: creation and listing', () => {
  it('CreateBucket of an own bucket: 200 when asked the same, BucketAlreadyExists with another ACL; another account: BucketAlreadyExists', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'again' }));
    await s3.send(new CreateBucketCommand({ Bucket: 'again' }));
    const acl = await failure(
      s3.send(new CreateBucketCommand({ Bucket: 'again', ACL: 'public-read' })),
    );
    expect(acl).toMatchObject({ name: 'BucketAlreadyExists', status: 409 });
    const stranger = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 's@example.com',
      username: 's',
    });
    const theirs = t.client(
      (await t.post('/v4/object-storage/keys', { label: 's' }, { token: stranger.token })).body,
    );
    expect((await failure(theirs.send(new CreateBucketCommand({ Bucket: 'again' })))).name).toBe(
      'BucketAlreadyExists',
    );
  });

  it('CreateBucket: S3 names (dotted ones too); bad names are InvalidBucketName; a foreign location is refused', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'my.dotted.bucket' }));
    await s3.send(new PutObjectCommand({ Bucket: 'my.dotted.bucket', Key: 'k', Body: 'k' }));
    for (const Bucket of ['ab', 'Upper', 'a..b', '192.168.1.1', 'xn--bucket', 'dash-.dot'])
      expect((await failure(s3.send(new CreateBucketCommand({ Bucket })))).name, Bucket).toBe(
        'InvalidBucketName',
      );
    const loc = await failure(
      s3.send(
        new CreateBucketCommand({
          Bucket: 'far-away',
          CreateBucketConfiguration: { LocationConstraint: 'ap-south-1' },
        }),
      ),
    );
    expect(loc).toMatchObject({ name: 'InvalidLocationConstraint', status: 400 });
    await s3.send(
      new CreateBucketCommand({
        Bucket: 'here',
        CreateBucketConfiguration: { LocationConstraint: CLUSTER as never },
      }),
    );
  });

  it('ListBuckets: max-buckets pages with a continuation token; anonymous gets an empty list', async () => {
    const first = await s3.send(new ListBucketsCommand({ MaxBuckets: 2 }));
    expect(first.Buckets).toHaveLength(2);
    expect(first.ContinuationToken).toBeDefined();
    const rest = await s3.send(
      new ListBucketsCommand({ MaxBuckets: 100, ContinuationToken: first.ContinuationToken }),
    );
    const all = [...(first.Buckets ?? []), ...(rest.Buckets ?? [])].map((b) => b.Name);
    expect(all).toEqual([...all].sort());
    expect(all).toContain('edge');
    expect(rest.ContinuationToken).toBeUndefined();
    const anon = await fetch(`${t.endpoint}/`);
    expect(anon.status).toBe(200);
    expect(await anon.text()).toContain('<Buckets></Buckets>');
  });
});

describe('S3 objects: edge cases', () => {
  it('response-* overrides: taken on signed requests; anonymous ones are refused; a CR or LF is a 400', async () => {
    const url = await getSignedUrl(
      s3,
      new GetObjectCommand({
        Bucket: 'edge',
        Key: 'hello.txt',
        ResponseContentType: 'text/x-test',
        ResponseContentLanguage: 'fr',
        ResponseExpires: new Date(0),
      }),
    );
    const signed = await fetch(url);
    expect(signed.headers.get('content-type')).toBe('text/x-test');
    expect(signed.headers.get('content-language')).toBe('fr');
    expect(signed.headers.get('expires')).toBe(new Date(0).toUTCString());
    await s3.send(new PutBucketAclCommand({ Bucket: 'edge', ACL: 'public-read' }));
    await s3.send(
      new PutObjectCommand({ Bucket: 'edge', Key: 'pub', Body: '<b>x</b>', ACL: 'public-read' }),
    );
    expect((await fetch(`${t.endpoint}/edge/pub`)).status).toBe(200);
    const anon = await fetch(`${t.endpoint}/edge/pub?response-content-type=text/html`);
    expect(anon.status).toBe(400);
    expect(await anon.text()).toContain('InvalidRequest');
    const crlf = await failure(
      s3.send(
        new GetObjectCommand({
          Bucket: 'edge',
          Key: 'hello.txt',
          ResponseContentDisposition: 'a\r\nSet-Cookie: x=1',
        }),
      ),
    );
    expect(crlf).toMatchObject({ status: 400, name: 'InvalidArgument' });
  });

  it('PutObject: the aws-chunked framing is not the object content encoding; a real one is kept', async () => {
    const streamed = () => Readable.from([Buffer.from('abc'), Buffer.from('def')]);
    await s3.send(
      new PutObjectCommand({ Bucket: 'edge', Key: 'chunked', Body: streamed(), ContentLength: 6 }),
    );
    const plain = await s3.send(new HeadObjectCommand({ Bucket: 'edge', Key: 'chunked' }));
    expect(plain.ContentEncoding).toBeUndefined();
    await s3.send(
      new PutObjectCommand({
        Bucket: 'edge',
        Key: 'gz',
        Body: streamed(),
        ContentLength: 6,
        ContentEncoding: 'gzip',
      }),
    );
    expect(
      (await s3.send(new HeadObjectCommand({ Bucket: 'edge', Key: 'gz' }))).ContentEncoding,
    ).toBe('gzip');
    // A plain (unframed) body whose encoding names aws-chunked: stored as sent, the name dropped.
    for (const [enc, kept] of [
      ['aws-chunked', undefined],
      ['gzip, aws-chunked', 'gzip'],
      ['aws-chunked, aws-chunked', undefined],
    ] as const) {
      for (const Body of ['', 'plain']) {
        await s3.send(
          new PutObjectCommand({ Bucket: 'edge', Key: 'named', Body, ContentEncoding: enc }),
        );
        const got = await s3.send(new GetObjectCommand({ Bucket: 'edge', Key: 'named' }));
        expect(got.ContentEncoding).toBe(kept);
        expect(await got.Body?.transformToString()).toBe(Body);
      }
    }
  });

  it('DeleteObjects: keys are taken as sent, spaces and entities included (as S3)', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'spaced' }));
    const keys = [' ', '_ ', ' _', '_ _', '&', '<>', '"\''];
    for (const Key of keys)
      await s3.send(new PutObjectCommand({ Bucket: 'spaced', Key, Body: Key }));
    const listed = (await s3.send(new ListObjectsV2Command({ Bucket: 'spaced' }))).Contents;
    expect(listed?.map((o) => o.Key).sort()).toEqual([...keys].sort());
    const out = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'spaced',
        Delete: { Objects: keys.map((Key) => ({ Key })) },
      }),
    );
    expect(out.Errors ?? []).toEqual([]);
    expect(out.Deleted?.map((d) => d.Key).sort()).toEqual([...keys].sort());
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'spaced' }))).KeyCount).toBe(0);
  });

  it('ListObjectsV2: an empty continuation token starts at the beginning and is echoed (RGW)', async () => {
    const r = await s3.send(new ListObjectsV2Command({ Bucket: 'edge', ContinuationToken: '' }));
    expect(r.ContinuationToken).toBe('');
    expect(r.IsTruncated).toBe(false);
    expect(r.Contents?.map((o) => o.Key)).toContain('hello.txt');
  });

  it('GetObjectTagging: the tag set comes back ordered by key (RGW), whatever order it was put in', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: 'edge', Key: 'tagged', Body: 'x', Tagging: 'foo=bar&bar' }),
    );
    const tags = await s3.send(new GetObjectTaggingCommand({ Bucket: 'edge', Key: 'tagged' }));
    expect(tags.TagSet).toEqual([
      { Key: 'bar', Value: '' },
      { Key: 'foo', Value: 'bar' },
    ]);
  });

  it('GetObject: a range of an empty object is 416 InvalidRange', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'edge', Key: 'empty', Body: '' }));
    const e = await failure(
      s3.send(new GetObjectCommand({ Bucket: 'edge', Key: 'empty', Range: 'bytes=0-0' })),
    );
    expect(e).toMatchObject({ status: 416, name: 'InvalidRange' });
    expect(
      (await s3.send(new GetObjectCommand({ Bucket: 'edge', Key: 'empty' }))).ContentLength,
    ).toBe(0);
  });

  it('Expect: 100-continue is answered after authentication (a refused upload never sends its body)', async () => {
    const port = Number(new URL(t.base).port);
    const attempt = (authorization: string) =>
      new Promise<{ continued: boolean; status: number }>((resolve, reject) => {
        let continued = false;
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'PUT',
          path: `/_stratus/s3/${CLUSTER}/edge/continue.txt`,
          headers: {
            expect: '100-continue',
            'content-length': 5,
            authorization,
            'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
            'x-amz-date': '20200101T000000Z',
          },
        });
        req.on('continue', () => {
          continued = true;
          req.end('hello');
        });
        req.on('response', (res) => {
          res.resume();
          resolve({ continued, status: res.statusCode ?? 0 });
          req.destroy();
        });
        req.on('error', reject);
      });
    const refused = await attempt(
      `AWS4-HMAC-SHA256 Credential=${key.access_key}/20200101/${CLUSTER}/s3/aws4_request, SignedHeaders=host, Signature=00`,
    );
    expect(refused).toEqual({ continued: false, status: 403 });
    // A valid request gets its 100 Continue (the SDK sends Expect for large bodies).
    const url = await getSignedUrl(
      s3,
      new PutObjectCommand({ Bucket: 'edge', Key: 'continue.txt' }),
    );
    const ok = await new Promise<{ continued: boolean; status: number }>((resolve, reject) => {
      let continued = false;
      const u = new URL(url);
      const req = http.request({
        host: u.hostname,
        port: u.port,
        method: 'PUT',
        path: `${u.pathname}${u.search}`,
        headers: { expect: '100-continue', 'content-length': 5 },
      });
      req.on('continue', () => {
        continued = true;
        req.end('hello');
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ continued, status: res.statusCode ?? 0 }));
      });
      req.on('error', reject);
    });
    expect(ok).toEqual({ continued: true, status: 200 });
  });
});

describe('S3 bad input: 4xx, never 500', () => {
  const signedPut = async (Key: string, extra: Record<string, string> = {}) => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'edge', Key }));
    return fetch(url, { method: 'PUT', body: 'x', headers: extra });
  };

  it('XML with a DOCTYPE or a __proto__ element is MalformedXML', async () => {
    const send = async (body: string) => {
      const url = await getSignedUrl(s3, new PutBucketAclCommand({ Bucket: 'edge' }));
      return fetch(url, { method: 'PUT', body });
    };
    const doctype = await send(
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><AccessControlPolicy>&e;</AccessControlPolicy>',
    );
    expect(doctype.status).toBe(400);
    expect(await doctype.text()).toContain('<Code>MalformedXML</Code>');
    const proto = await send(
      '<AccessControlPolicy><__proto__><polluted>1</polluted></__proto__></AccessControlPolicy>',
    );
    expect(proto.status).toBe(400);
    expect(await proto.text()).toContain('<Code>MalformedXML</Code>');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('CopyObject: a badly percent-encoded x-amz-copy-source is InvalidArgument', async () => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'edge', Key: 'copy-dst' }), {
      unhoistableHeaders: new Set(['x-amz-copy-source']),
    });
    const r = await fetch(url, {
      method: 'PUT',
      headers: { 'x-amz-copy-source': '/edge/%E0%A4%A' },
    });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('<Code>InvalidArgument</Code>');
  });

  it('an object key with a NUL is refused (never stored, never listed)', async () => {
    const r = await signedPut('nul\u0000key');
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('<Code>InvalidArgument</Code>');
    const rows = await t.ctx.db.db.selectFrom('obj_objects').select('name').execute();
    expect(rows.some((x) => x.name.includes('\u0000'))).toBe(false);
  });
});

describe('S3 downloads: streams closed on abort', () => {
  it('GetObject of a multipart object aborted by the client leaves no file open', async () => {
    const up = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'edge', Key: 'mp' }));
    const parts = [];
    for (const n of [1, 2, 3]) {
      const body = Buffer.alloc(n < 3 ? 5 * 1024 * 1024 : 1024 * 1024, n);
      const p = await s3.send(
        new UploadPartCommand({
          Bucket: 'edge',
          Key: 'mp',
          UploadId: up.UploadId,
          PartNumber: n,
          Body: body,
        }),
      );
      parts.push({ PartNumber: n, ETag: p.ETag });
    }
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'edge',
        Key: 'mp',
        UploadId: up.UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'edge', Key: 'mp' }));
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 30; i++) {
      const ac = new AbortController();
      const r = await fetch(url, { signal: ac.signal });
      const reader = r.body?.getReader();
      await reader?.read();
      ac.abort();
    }
    // Let the server see the resets and close what it opened.
    for (let i = 0; i < 50 && open() > before + 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(open()).toBeLessThanOrEqual(before + 2);
  });
});
