import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { CreateMultipartUploadCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobConfig } from '../../../src/config/blob-config.js';
import { ConfigError } from '../../../src/config/config.js';
import { type BlobStore, BlobTooLargeError, createBlobStores } from '../../../src/storage/index.js';
import { MemoryBlobStore } from '../../../src/storage/memory.js';
import { s3ClientFor } from '../../../src/storage/s3.js';
import { type BlobCluster, startBlobCluster } from '../../helpers/blob-cluster.js';

let cluster: BlobCluster;
let dir: string;
beforeAll(async () => {
  cluster = await startBlobCluster();
  dir = await mkdtemp(path.join(tmpdir(), 'stratus-blobs-'));
});
afterAll(async () => {
  await cluster.dispose();
  await rm(dir, { recursive: true, force: true });
});

const read = async (s: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};
const keysOf = async (store: BlobStore) => {
  const out: string[] = [];
  for await (const k of store.list()) out.push(k);
  return out;
};
const stores: Record<string, () => Promise<BlobStore>> = {
  local: async () => (await createBlobStores(dir, { backend: 'local' }))('contract'),
  memory: async () => new MemoryBlobStore(),
  s3: async () => (await createBlobStores(dir, blobConfig(cluster.env)))('contract'),
};

describe.each(Object.keys(stores))('BlobStore contract (%s)', (name) => {
  let store: BlobStore;
  beforeAll(async () => {
    store = await (stores[name] as () => Promise<BlobStore>)();
  });

  it('put/get/head/list/delete: a blob is written, read whole or by range, listed, removed', async () => {
    const key = store.newKey();
    const res = await store.put(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    expect(res).toEqual({
      size: 11,
      md5: '5eb63bbbe01eeed093cb22bb8f5acdc3',
      sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    });
    expect(await read(await store.get(key))).toBe('hello world');
    expect(await read(await store.get(key, { start: 6, end: 10 }))).toBe('world');
    expect((await store.head(key))?.size).toBe(11);
    expect(await keysOf(store)).toContain(key);
    await store.delete(key);
    await store.delete(key);
    expect(await store.head(key)).toBeNull();
    await expect(store.get(key)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('put: an empty stream is an empty blob', async () => {
    const key = store.newKey();
    expect((await store.put(key, Readable.from([]))).size).toBe(0);
    expect(await read(await store.get(key))).toBe('');
    expect((await store.head(key))?.size).toBe(0);
    await store.delete(key);
  });

  it('put: over maxBytes rejects and leaves no blob', async () => {
    const key = store.newKey();
    await expect(
      store.put(key, Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 }),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.head(key)).toBeNull();
  });

  it('put: a stream that fails midway rejects and leaves no blob', async () => {
    const key = store.newKey();
    const body = new PassThrough();
    const p = store.put(key, body);
    body.write(Buffer.alloc(1000, 'a'));
    setTimeout(() => body.destroy(new Error('client went away')), 20);
    await expect(p).rejects.toThrow();
    expect(await store.head(key)).toBeNull();
  });
});

describe('S3 blob store', () => {
  it('put: a blob larger than a part goes up as a multipart upload and reads back whole', async () => {
    const store = (await stores.s3?.()) as BlobStore;
    const key = store.newKey();
    const part = Buffer.alloc(1024 * 1024, 7);
    const res = await store.put(key, Readable.from(Array.from({ length: 9 }, () => part)));
    expect(res.size).toBe(9 * 1024 * 1024);
    const got = await store.get(key);
    let n = 0;
    for await (const c of got) n += (c as Buffer).length;
    expect(n).toBe(9 * 1024 * 1024);
    // The cluster holds it as one object made of parts.
    const head = await store.head(key);
    expect(head?.size).toBe(9 * 1024 * 1024);
    await store.delete(key);
  });

  it('sweepPartial: aborts multipart uploads a crashed writer left open', async () => {
    const cfg = blobConfig(cluster.env);
    if (cfg.backend !== 's3') throw new Error('s3 config expected');
    const client = s3ClientFor(cfg);
    const store = (await createBlobStores(dir, cfg))('sweep');
    await client.send(
      new CreateMultipartUploadCommand({
        Bucket: cfg.bucket,
        Key: `${cfg.prefix}sweep/${store.newKey()}`,
      }),
    );
    expect(await store.sweepPartial(Date.now() - 60_000)).toBe(0);
    expect(await store.sweepPartial(Date.now() + 60_000)).toBe(1);
    expect(await store.sweepPartial(Date.now() + 60_000)).toBe(0);
    client.destroy();
  });

  it('config: STRATUS_BLOB_BACKEND=s3 needs a bucket; other values are refused', () => {
    expect(() => blobConfig({ STRATUS_BLOB_BACKEND: 's3' })).toThrow(ConfigError);
    expect(() => blobConfig({ STRATUS_BLOB_BACKEND: 'ftp' })).toThrow(/local or s3/);
    expect(() =>
      blobConfig({
        STRATUS_BLOB_BACKEND: 's3',
        STRATUS_BLOB_S3_BUCKET: 'b',
        STRATUS_BLOB_S3_ACCESS_KEY_ID: 'only-the-id',
      }),
    ).toThrow(/go together/);
    expect(blobConfig({})).toEqual({ backend: 'local' });
    expect(
      blobConfig({
        STRATUS_BLOB_BACKEND: 's3',
        STRATUS_BLOB_S3_BUCKET: 'b',
        STRATUS_BLOB_S3_ENDPOINT: 'http://minio:9000',
        STRATUS_BLOB_S3_PREFIX: 'stratus',
      }),
    ).toMatchObject({ forcePathStyle: true, prefix: 'stratus/', region: 'us-east-1' });
  });
});
