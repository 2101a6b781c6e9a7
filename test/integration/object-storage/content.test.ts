import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERT, KEY, OTHER_KEY } from './certs.js';
import { TEST_BLOB_BACKEND } from '../../helpers/blob-cluster.js';
import { buildS3App, CLUSTER, hostOf, type S3TestApp } from './fixtures.js';

const run = promisify(execFile);
let t: S3TestApp;
let s3: S3Client;
const B = `/v4/object-storage/buckets/${CLUSTER}/content`;

beforeAll(async () => {
  t = await buildS3App();
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'content' });
  s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
});
afterAll(() => t.dispose());

const objectUrl = async (body: Record<string, unknown>) =>
  t.post(`${B}/object-url`, body, { headers: hostOf(t) });

describe('object list', () => {
  it('getObjectStorageBucketContent: objects written through S3 appear, with marker paging', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `obj-${String(i).padStart(2, '0')}`);
    for (const n of names)
      await s3.send(new PutObjectCommand({ Bucket: 'content', Key: n, Body: n }));
    const p1 = await t.get(`${B}/object-list?page_size=25`);
    expect(p1.status).toBe(200);
    expect(p1.body.data).toHaveLength(25);
    expect(p1.body.is_truncated).toBe(true);
    expect(p1.body.next_marker).toBe('obj-24');
    expect(p1.body.data[0]).toMatchObject({
      name: 'obj-00',
      size: 6,
      etag: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const p2 = await t.get(`${B}/object-list?page_size=25&marker=${p1.body.next_marker}`);
    expect(p2.body.data.map((o: { name: string }) => o.name)).toEqual(names.slice(25));
    expect(p2.body.is_truncated).toBe(false);
    expect(p2.body.next_marker).toBeNull();
  });

  it('getObjectStorageBucketContent: prefix and delimiter give folder entries', async () => {
    for (const n of ['dir/a', 'dir/b', 'dir/sub/c'])
      await s3.send(new PutObjectCommand({ Bucket: 'content', Key: n, Body: 'x' }));
    const r = await t.get(`${B}/object-list?prefix=dir/&delimiter=/`);
    expect(r.body.data.map((o: { name: string }) => o.name)).toEqual([
      'dir/a',
      'dir/b',
      'dir/sub/',
    ]);
    expect(r.body.data[2]).toEqual({ name: 'dir/sub/' });
  });

  it('getObjectStorageBucketContent: page_size must be 25..500', async () => {
    expect((await t.get(`${B}/object-list?page_size=24`)).status).toBe(400);
    expect((await t.get(`${B}/object-list?page_size=501`)).status).toBe(400);
  });

  it('getObjectStorageBucket: size and objects follow the data plane', async () => {
    const b = await t.get(B);
    const rows = await t.get(`${B}/object-list?page_size=500`);
    const total = rows.body.data.reduce((n: number, o: { size: number }) => n + o.size, 0);
    expect(b.body.objects).toBe(33);
    expect(b.body.size).toBe(total);
  });
});

describe('object-url', () => {
  it('createObjectStorageObjectURL: PUT then GET URLs work with curl; content type is bound', async () => {
    const put = await objectUrl({
      method: 'PUT',
      name: 'curl/file name.txt',
      content_type: 'text/plain',
      expires_in: 360,
    });
    expect(put.status).toBe(200);
    const wrongType = await fetch(put.body.url, {
      method: 'PUT',
      body: 'x',
      headers: { 'content-type': 'text/html' },
    });
    expect(wrongType.status).toBe(403);
    await run('curl', [
      '-sf',
      '-X',
      'PUT',
      '-H',
      'Content-Type: text/plain',
      '--data-binary',
      'from curl',
      put.body.url,
    ]);
    const get = await objectUrl({ name: 'curl/file name.txt', method: 'GET' });
    const { stdout } = await run('curl', ['-sf', get.body.url]);
    expect(stdout).toBe('from curl');
    const list = await t.get(`${B}/object-list?prefix=curl/`);
    expect(list.body.data.map((o: { name: string }) => o.name)).toEqual(['curl/file name.txt']);
  });

  it('createObjectStorageObjectURL: POST writes the object; DELETE removes it', async () => {
    const post = await objectUrl({
      method: 'POST',
      name: 'posted',
      content_type: 'application/json',
    });
    const r = await fetch(post.body.url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
    const del = await objectUrl({ method: 'DELETE', name: 'posted' });
    expect((await fetch(del.body.url, { method: 'DELETE' })).status).toBe(204);
    expect((await t.get(`${B}/object-list?prefix=posted`)).body.data).toEqual([]);
  });

  it('createObjectStorageObjectURL: content_type required except for GET and DELETE; expires_in 360..86400', async () => {
    expect((await objectUrl({ method: 'PUT', name: 'a' })).body.errors[0].field).toBe(
      'content_type',
    );
    expect((await objectUrl({ method: 'POST', name: 'a' })).body.errors[0].field).toBe(
      'content_type',
    );
    expect((await objectUrl({ method: 'DELETE', name: 'a' })).status).toBe(200);
    expect((await objectUrl({ method: 'GET', name: 'a', expires_in: 359 })).status).toBe(400);
    expect((await objectUrl({ method: 'GET', name: 'a', expires_in: 86401 })).status).toBe(400);
    expect((await objectUrl({ method: 'PATCH', name: 'a' })).body.errors[0].field).toBe('method');
    const r = await objectUrl({ name: 'a' });
    expect(new URL(r.body.url).searchParams.get('X-Amz-Expires')).toBe('3600');
  });

  it('createObjectStorageObjectURL: the URL expires after expires_in', async () => {
    const r = await objectUrl({ method: 'GET', name: 'obj-00', expires_in: 360 });
    expect((await fetch(r.body.url)).status).toBe(200);
    t.clock.advance(361_000);
    const late = await fetch(r.body.url);
    expect(late.status).toBe(403);
  });
});

describe('object ACL', () => {
  it('viewObjectStorageBucketACL / updateObjectStorageBucketACL: a public-read object is readable anonymously', async () => {
    const anon = `${t.endpoint}/content/obj-01`;
    expect((await fetch(anon)).status).toBe(403);
    const view = await t.get(`${B}/object-acl?name=obj-01`);
    expect(view.body.acl).toBe('private');
    expect(view.body.acl_xml).toContain('FULL_CONTROL');
    const put = await t.put(`${B}/object-acl`, { name: 'obj-01', acl: 'public-read' });
    expect(put.body.acl).toBe('public-read');
    expect(put.body.acl_xml).toContain('AllUsers');
    const r = await fetch(anon);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('obj-01');
    expect((await t.get(`${B}/object-acl?name=missing`)).status).toBe(404);
    expect((await t.put(`${B}/object-acl`, { name: 'obj-01' })).body.errors[0].field).toBe('acl');
  });
});

describe('TLS certificates', () => {
  it('createObjectStorageSSL: a matching, current pair in the \\n form is stored; the key sealed', async () => {
    t.clock.set('2027-01-01T00:00:00Z');
    expect((await t.get(`${B}/ssl`)).body).toEqual({ ssl: false });
    const r = await t.post(`${B}/ssl`, {
      certificate: CERT.replace(/\n/g, '\\n'),
      private_key: KEY.replace(/\n/g, '\\n'),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ssl: true });
    expect((await t.get(`${B}/ssl`)).body).toEqual({ ssl: true });
    const row = await t.ctx.db.db
      .selectFrom('obj_buckets')
      .selectAll()
      .where('label', '=', 'content')
      .executeTakeFirstOrThrow();
    expect(row.ssl_key_sealed).not.toContain('PRIVATE KEY');
    expect((await t.post(`${B}/ssl`, { certificate: CERT, private_key: KEY })).status).toBe(400);
    expect((await t.del(`${B}/ssl`)).status).toBe(200);
    expect((await t.get(`${B}/ssl`)).body).toEqual({ ssl: false });
  });

  it('createObjectStorageSSL: a mismatched key, garbage, or an expired certificate is a 400', async () => {
    const mismatch = await t.post(`${B}/ssl`, { certificate: CERT, private_key: OTHER_KEY });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0].field).toBe('private_key');
    const garbage = await t.post(`${B}/ssl`, { certificate: 'not a cert', private_key: KEY });
    expect(garbage.body.errors[0].field).toBe('certificate');
    t.clock.set('2127-01-01T00:00:00Z');
    const expired = await t.post(`${B}/ssl`, { certificate: CERT, private_key: KEY });
    expect(expired.status).toBe(400);
    expect(expired.body.errors[0].reason).toMatch(/expired/);
    t.clock.set(Date.now());
  });
});

describe('transfer and cancel', () => {
  it('getObjectStorageTransfer: counts bytes sent by the data plane this month', async () => {
    const before = (await t.get('/v4/object-storage/transfer')).body.used;
    const url = (await objectUrl({ method: 'GET', name: 'obj-02' })).body.url;
    expect(await (await fetch(url)).text()).toBe('obj-02');
    // Counted once the response has been sent: the client may see the bytes a moment earlier.
    let after = before;
    for (let i = 0; i < 50 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = (await t.get('/v4/object-storage/transfer')).body.used;
    }
    expect(after - before).toBe(6);
  });

  it('cancelObjectStorage: removes every bucket and its bytes', async () => {
    const files = async () => {
      const out: string[] = [];
      for await (const k of t.ctx.areas.objectStorage.data.blobs.list()) out.push(k);
      return out;
    };
    expect((await files()).length).toBeGreaterThan(0);
    expect((await t.post('/v4/object-storage/cancel')).status).toBe(200);
    expect((await t.get('/v4/object-storage/buckets')).body.results).toBe(0);
    expect(await files()).toEqual([]);
  });
});

describe('orphaned blobs', () => {
  // File times are the local disk's (the S3 store's sweep is in blob-stores.test.ts).
  it.skipIf(TEST_BLOB_BACKEND === 's3')(
    'sweepOrphans: removes old unreferenced blobs and partial writes, keeps published ones',
    async () => {
      const { utimes, writeFile, mkdir } = await import('node:fs/promises');
      await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'sweep' });
      await s3.send(new PutObjectCommand({ Bucket: 'sweep', Key: 'kept', Body: 'kept' }));
      const data = t.ctx.areas.objectStorage.data;
      const orphan = data.blobs.newKey();
      const { Readable } = await import('node:stream');
      await data.blobs.put(orphan, Readable.from([Buffer.from('lost')]));
      const young = data.blobs.newKey();
      await data.blobs.put(young, Readable.from([Buffer.from('in flight')]));
      const root = path.join(t.dataDir, 'objects');
      const old = new Date(Date.now() - 2 * 3600_000);
      await utimes(path.join(root, orphan.slice(0, 2), orphan.slice(2, 4), orphan), old, old);
      await mkdir(path.join(root, 'tmp'), { recursive: true });
      await writeFile(path.join(root, 'tmp', 'partial'), 'half');
      await utimes(path.join(root, 'tmp', 'partial'), old, old);
      for (const b of await t.ctx.db.db.selectFrom('obj_objects').select('blobs').execute()) {
        for (const r of JSON.parse(b.blobs))
          await utimes(path.join(root, r.key.slice(0, 2), r.key.slice(2, 4), r.key), old, old);
      }
      expect(await data.sweepOrphans(Date.now() - 3600_000)).toBe(2);
      expect(await data.blobs.head(orphan)).toBeNull();
      expect(await data.blobs.head(young)).not.toBeNull();
      const got = await s3.send(
        new (await import('@aws-sdk/client-s3')).GetObjectCommand({ Bucket: 'sweep', Key: 'kept' }),
      );
      expect(await got.Body?.transformToString()).toBe('kept');
    },
  );
});
