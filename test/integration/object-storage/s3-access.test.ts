import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutBucketAclCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { buildS3App, CLUSTER, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let owner: S3Client;

async function errorName(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { name: string }).name;
  }
  return 'ok';
}

const keyWith = async (bucket_access?: unknown[], token?: string) =>
  t.client(
    (
      await t.post(
        '/v4/object-storage/keys',
        { label: 'k', ...(bucket_access ? { bucket_access } : {}) },
        token ? { token } : {},
      )
    ).body,
  );

beforeAll(async () => {
  t = await buildS3App();
  for (const label of ['red', 'blue'])
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
  owner = await keyWith();
  await owner.send(new PutObjectCommand({ Bucket: 'red', Key: 'r.txt', Body: 'red' }));
  await owner.send(new PutObjectCommand({ Bucket: 'blue', Key: 'b.txt', Body: 'blue' }));
});
afterAll(() => t.dispose());

const get = (c: S3Client, Bucket: string, Key: string) =>
  errorName(c.send(new GetObjectCommand({ Bucket, Key })));
const put = (c: S3Client, Bucket: string, Key: string) =>
  errorName(c.send(new PutObjectCommand({ Bucket, Key, Body: 'w' })));

describe('S3 access: limited keys', () => {
  it('read_only on a bucket: can read and list it, cannot write it, cannot touch another bucket', async () => {
    const ro = await keyWith([{ cluster: CLUSTER, bucket_name: 'red', permissions: 'read_only' }]);
    expect(await get(ro, 'red', 'r.txt')).toBe('ok');
    expect(await errorName(ro.send(new ListObjectsV2Command({ Bucket: 'red' })))).toBe('ok');
    expect(await put(ro, 'red', 'new.txt')).toBe('AccessDenied');
    expect(await get(ro, 'blue', 'b.txt')).toBe('AccessDenied');
    expect(await errorName(ro.send(new ListObjectsV2Command({ Bucket: 'blue' })))).toBe(
      'AccessDenied',
    );
  });

  it('read_write on a bucket: can write it, not another bucket', async () => {
    const rw = await keyWith([{ cluster: CLUSTER, bucket_name: 'red', permissions: 'read_write' }]);
    expect(await put(rw, 'red', 'rw.txt')).toBe('ok');
    expect(await put(rw, 'blue', 'rw.txt')).toBe('AccessDenied');
  });

  it('limited keys list all buckets and create buckets, but get no access to them', async () => {
    const none = await keyWith([]);
    const all = await none.send(new ListBucketsCommand({}));
    expect(all.Buckets?.map((b) => b.Name)).toEqual(['blue', 'red']);
    expect(await get(none, 'red', 'r.txt')).toBe('AccessDenied');
    await none.send(new CreateBucketCommand({ Bucket: 'made-by-limited' }));
    expect(await put(none, 'made-by-limited', 'x')).toBe('AccessDenied');
    const seen = await t.get(`/v4/object-storage/buckets/${CLUSTER}/made-by-limited`);
    expect(seen.status).toBe(200);
  });

  it("another account's key has no access to private buckets", async () => {
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'o',
    });
    const stranger = await keyWith(undefined, other.token);
    expect(await get(stranger, 'red', 'r.txt')).toBe('AccessDenied');
    expect(await put(stranger, 'red', 'x')).toBe('AccessDenied');
    expect(await errorName(stranger.send(new CreateBucketCommand({ Bucket: 'red' })))).toBe(
      'BucketAlreadyExists',
    );
  });
});

describe('S3 access: Signature V2 query strings', () => {
  it('a V2 pre-signed GET (AWSAccessKeyId, Expires, Signature) works until it expires', async () => {
    const { createHmac } = await import('node:crypto');
    const k = (await t.post('/v4/object-storage/keys', { label: 'v2' })).body;
    const expires = Math.floor(Date.now() / 1000) + 300;
    const sign = (resource: string) =>
      createHmac('sha1', k.secret_key).update(`GET\n\n\n${expires}\n${resource}`).digest('base64');
    const url = (sig: string) =>
      `${t.endpoint}/red/r.txt?AWSAccessKeyId=${k.access_key}&Expires=${expires}&Signature=${encodeURIComponent(sig)}`;
    const ok = await fetch(url(sign('/red/r.txt')));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('red');
    expect((await fetch(url(sign('/red/other.txt')))).status).toBe(403);
    t.clock.set((expires + 1) * 1000);
    expect((await fetch(url(sign('/red/r.txt')))).status).toBe(403);
    t.clock.set(Date.now());
  });
});

describe('S3 access: ACLs', () => {
  it('PutObjectAcl: needs a read_write key; public-read opens the object to anonymous reads', async () => {
    const { PutObjectAclCommand } = await import('@aws-sdk/client-s3');
    const ro = await keyWith([{ cluster: CLUSTER, bucket_name: 'red', permissions: 'read_only' }]);
    expect(
      await errorName(
        ro.send(new PutObjectAclCommand({ Bucket: 'red', Key: 'r.txt', ACL: 'public-read' })),
      ),
    ).toBe('AccessDenied');
    await owner.send(new PutObjectAclCommand({ Bucket: 'red', Key: 'rw.txt', ACL: 'public-read' }));
    expect((await fetch(`${t.endpoint}/red/rw.txt`)).status).toBe(200);
    const acl = await t.get(`/v4/object-storage/buckets/${CLUSTER}/red/object-acl?name=rw.txt`);
    expect(acl.body.acl).toBe('public-read');
  });

  it('an anonymous read of a public-read object works; a private one is refused', async () => {
    await owner.send(
      new PutObjectCommand({
        Bucket: 'red',
        Key: 'public.txt',
        Body: 'hi all',
        ACL: 'public-read',
      }),
    );
    const r = await fetch(`${t.endpoint}/red/public.txt`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('hi all');
    const p = await fetch(`${t.endpoint}/red/r.txt`);
    expect(p.status).toBe(403);
    expect(await p.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('a public-read bucket can be listed anonymously; writing needs public-read-write', async () => {
    expect((await fetch(`${t.endpoint}/blue?list-type=2`)).status).toBe(403);
    await owner.send(new PutBucketAclCommand({ Bucket: 'blue', ACL: 'public-read' }));
    const list = await fetch(`${t.endpoint}/blue?list-type=2`);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('<Key>b.txt</Key>');
    expect((await fetch(`${t.endpoint}/blue/anon.txt`, { method: 'PUT', body: 'x' })).status).toBe(
      403,
    );
    await t.put(`/v4/object-storage/buckets/${CLUSTER}/blue/access`, { acl: 'public-read-write' });
    expect((await fetch(`${t.endpoint}/blue/anon.txt`, { method: 'PUT', body: 'x' })).status).toBe(
      200,
    );
  });

  it('CORS preflight: answered only when the bucket has cors_enabled (all origins: `*`)', async () => {
    const pre = () =>
      fetch(`${t.endpoint}/red/r.txt`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' },
      });
    expect((await pre()).status).toBe(403);
    await t.put(`/v4/object-storage/buckets/${CLUSTER}/red/access`, { cors_enabled: true });
    const ok = await pre();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('S3 access: bucket lifecycle', () => {
  it('deleteObjectStorageBucket: a new bucket of the same name is not granted to old limited keys', async () => {
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'reborn' });
    const k = await t.post('/v4/object-storage/keys', {
      label: 'scoped',
      bucket_access: [{ cluster: CLUSTER, bucket_name: 'reborn', permissions: 'read_write' }],
    });
    expect((await t.del(`/v4/object-storage/buckets/${CLUSTER}/reborn`)).status).toBe(200);
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'reborn' });
    expect((await t.get(`/v4/object-storage/keys/${k.body.id}`)).body.bucket_access).toEqual([]);
    expect(await put(t.client(k.body), 'reborn', 'x')).toBe('AccessDenied');
  });

  it('PutObject: a key longer than 1024 bytes is KeyTooLongError', async () => {
    expect(await put(owner, 'red', 'k'.repeat(1025))).toBe('KeyTooLongError');
  });
});

describe('S3 data plane: observability', () => {
  it('metrics: data-plane requests are counted under their S3 operation', async () => {
    await fetch(`${t.endpoint}/red/public.txt`);
    await fetch(`${t.endpoint}/red/r.txt`);
    const m = (
      await t.get('/_stratus/metrics', { token: await t.ctx.areas.controls.operator.rotate() })
    ).text;
    expect(m).toMatch(/operation="s3:GetObject",method="GET",status="200"\} [1-9]/);
    expect(m).toMatch(/operation="s3:GetObject",method="GET",status="403"\} [1-9]/);
  });
});

describe('S3 data plane: payload and balance checks', () => {
  it('PutObject: a body that does not match its signed x-amz-content-sha256 is refused and not stored', async () => {
    const { amzDate, canonicalRequest, sha256Hex, signature, signingKey, stringToSign } =
      await import('../../../src/modules/object-storage/s3/sigv4.js');
    const k = (await t.post('/v4/object-storage/keys', { label: 'raw' })).body;
    const url = new URL(`${t.endpoint}/red/tampered.txt`);
    const date = amzDate(Date.now());
    const declared = sha256Hex('the signed body');
    const headers: Record<string, string> = {
      host: url.host,
      'x-amz-content-sha256': declared,
      'x-amz-date': date,
    };
    const signed = Object.keys(headers).sort();
    const scope = `${date.slice(0, 8)}/${CLUSTER}/s3/aws4_request`;
    const canonical = canonicalRequest({
      method: 'PUT',
      path: decodeURIComponent(url.pathname),
      query: [],
      headers,
      signedHeaders: signed,
      payloadHash: declared,
    });
    const sig = signature(
      signingKey(k.secret_key, date.slice(0, 8), CLUSTER, 's3'),
      stringToSign(date, scope, canonical),
    );
    const auth = `AWS4-HMAC-SHA256 Credential=${k.access_key}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${sig}`;
    const send = (body: string) =>
      fetch(url, {
        method: 'PUT',
        body,
        headers: { 'x-amz-content-sha256': declared, 'x-amz-date': date, authorization: auth },
      });
    const bad = await send('another body');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect(await get(owner, 'red', 'tampered.txt')).toBe('NoSuchKey');
    expect((await send('the signed body')).status).toBe(200);
    expect(await get(owner, 'red', 'tampered.txt')).toBe('ok');
  });

  it('CreateBucket: refused on the data plane too while the balance is negative', async () => {
    await t.ctx.db.db
      .updateTable('accounts')
      .set({ balance_cents: -100 })
      .where('id', '=', t.admin.accountId)
      .execute();
    const r = await errorName(owner.send(new CreateBucketCommand({ Bucket: 'no-credit' })));
    await t.ctx.db.db
      .updateTable('accounts')
      .set({ balance_cents: 0 })
      .where('id', '=', t.admin.accountId)
      .execute();
    expect(r).toBe('AccessDenied');
    expect((await t.get(`/v4/object-storage/buckets/${CLUSTER}/no-credit`)).status).toBe(404);
  });
});

describe('S3 data plane: malformed requests', () => {
  it('a path with invalid percent-encoding is answered (the router refuses it), not left hanging', async () => {
    const r = await fetch(`${t.endpoint}/red/bad%E0%A4%A`, { signal: AbortSignal.timeout(5000) });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('an unknown cluster is NoSuchCluster', async () => {
    const r = await fetch(`${t.base}/_stratus/s3/mars-1/red/r.txt`);
    expect(r.status).toBe(404);
    expect(await r.text()).toContain('<Code>NoSuchCluster</Code>');
  });
});

describe('S3 data plane: usage counters', () => {
  it('usage: per-bucket stored bytes and bytes in/out, for billing', async () => {
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'metered' });
    await owner.send(new PutObjectCommand({ Bucket: 'metered', Key: 'a', Body: '12345' }));
    await owner.send(new PutObjectCommand({ Bucket: 'metered', Key: 'b', Body: '123' }));
    expect(await get(owner, 'metered', 'a')).toBe('ok');
    let row: { size: number; objects: number; bytes_in: number; bytes_out: number } | undefined;
    for (let i = 0; i < 50; i++) {
      const usage = await t.ctx.areas.objectStorage.data.usage(t.admin.accountId);
      row = usage.find((u) => u.label === 'metered');
      if (row?.bytes_out) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(row).toMatchObject({ size: 8, objects: 2, bytes_in: 8, bytes_out: 5 });
  });
});
