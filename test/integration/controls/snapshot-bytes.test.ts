import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sealer } from '../../../src/platform/sealer.js';
import type { BlobStore } from '../../../src/storage/index.js';
import { gzippedImage, putUpload } from '../images/fixtures.js';
import { CERT, KEY } from '../nodebalancers/tls.js';
import { buildS3App, CLUSTER, type S3TestApp } from '../object-storage/fixtures.js';
import { op, operatorToken } from './helpers.js';

/**
 * Streamed snapshots (format 2) carry the object and image bytes, read and written through the
 * blob stores (STRATUS_TEST_BLOB_BACKEND=s3: on an external S3 cluster).
 */
describe('emulator controls: snapshots with bytes', () => {
  let a: S3TestApp;
  let token: string;
  const apps: S3TestApp[] = [];
  beforeEach(async () => {
    a = await buildS3App();
    apps.push(a);
    token = await tokenOf(a);
  });
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.dispose();
  });

  const OBJECT = Buffer.alloc(700 * 1024, 'o'); // several data lines
  const IMAGE = gzippedImage(2);

  /** A bucket with an object, an uploaded image, and an https NodeBalancer config. */
  async function populate(t: S3TestApp) {
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'kept' });
    const key = (await t.post('/v4/object-storage/keys', { label: 'k' })).body;
    await t
      .client(key)
      .send(new PutObjectCommand({ Bucket: 'kept', Key: 'big.bin', Body: OBJECT }));
    const up = await t.post('/v4/images/upload', { region: 'us-east', label: 'up' });
    expect((await putUpload(t, up.body.upload_to, IMAGE)).status).toBe(200);
    const nb = await t.post('/v4/nodebalancers', { region: 'us-east' });
    const cfg = await t.post(`/v4/nodebalancers/${nb.body.id}/configs`, {
      protocol: 'https',
      port: 443,
      ssl_cert: CERT,
      ssl_key: KEY,
    });
    expect(cfg.status, cfg.text).toBe(200);
    return { key, imageId: up.body.image.id as string, nbId: nb.body.id as number };
  }

  const tokens = new Map<S3TestApp, string>();
  const tokenOf = async (t: S3TestApp) => {
    const tk = tokens.get(t) ?? (await operatorToken(t));
    tokens.set(t, tk);
    return tk;
  };
  const exportNdjson = async (t: S3TestApp) => {
    const r = await t.app.inject({
      method: 'GET',
      url: '/_stratus/snapshot',
      headers: { authorization: `Bearer ${await tokenOf(t)}` },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/x-ndjson/);
    return r.body;
  };
  // Over a real connection: a refused stream must still get its answer.
  const importNdjson = async (t: S3TestApp, body: string) => {
    const r = await fetch(`${t.base}/_stratus/snapshot`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await tokenOf(t)}`,
        'content-type': 'application/x-ndjson',
      },
      body,
    });
    return {
      status: r.status,
      body: JSON.parse(await r.text()),
      connection: r.headers.get('connection'),
    };
  };
  const readObject = async (t: S3TestApp, key: { access_key: string; secret_key: string }) => {
    const got = await t.client(key).send(new GetObjectCommand({ Bucket: 'kept', Key: 'big.bin' }));
    return Buffer.from((await got.Body?.transformToByteArray()) as Uint8Array);
  };
  const imageBlob = async (t: S3TestApp, imageId: string) => {
    const row = await t.ctx.db.db
      .selectFrom('private_images')
      .select('blob_key')
      .where('id', '=', Number(imageId.split('/')[1]))
      .executeTakeFirstOrThrow();
    const store = (t.ctx.areas.images.images as unknown as { d: { bytes: BlobStore } }).d.bytes;
    const chunks: Buffer[] = [];
    for await (const c of await store.get(row.blob_key as string)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const sealedKeyOpens = async (t: S3TestApp) => {
    const row = await t.ctx.db.db
      .selectFrom('nodebalancer_configs')
      .select('ssl_key_sealed')
      .executeTakeFirstOrThrow();
    return new Sealer(t.ctx.db, t.ctx.config.encryptionKey).open(row.ssl_key_sealed as string);
  };

  it('exportSnapshot: NDJSON, the rows then each blob in base64 chunks with its SHA-256, then done', async () => {
    await populate(a);
    const lines = (await exportNdjson(a))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ format: 'stratus-snapshot', version: 2, blobs: 'follow' });
    const blobs = lines.filter((l) => l.blob).map((l) => l.blob.area);
    expect(blobs.sort()).toEqual(['images', 'objects']);
    expect(lines.filter((l) => l.data).length).toBeGreaterThanOrEqual(4);
    expect(lines.at(-1)).toEqual({ done: { blobs: 2 } });
    const ends = lines.filter((l) => l.end).map((l) => l.end.size);
    expect(ends.sort((x, y) => x - y)).toEqual([IMAGE.length, OBJECT.length].sort((x, y) => x - y));
    // The TLS key travels sealed only.
    expect(lines[0].tables.nodebalancer_configs).toBeDefined();
    expect(JSON.stringify(lines[0])).not.toContain('PRIVATE KEY');
  });

  it('importSnapshot: after a reset, a streamed snapshot brings back rows, object and image bytes', async () => {
    const { key, imageId } = await populate(a);
    const snap = await exportNdjson(a);
    expect((await op(a, token).post('/_stratus/reset')).status).toBe(200);
    // The reset swept the bytes.
    const left: string[] = [];
    for await (const k of a.ctx.areas.objectStorage.data.blobs.list()) left.push(k);
    expect(left).toEqual([]);
    const r = await importNdjson(a, snap);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.blobs).toBe(2);
    expect((await readObject(a, key)).equals(OBJECT)).toBe(true);
    expect((await a.get(`/v4/images/${imageId}`)).body.status).toBe('available');
    expect((await imageBlob(a, imageId)).equals(IMAGE)).toBe(true);
    expect(await sealedKeyOpens(a)).toBe(KEY);
  });

  it('importSnapshot: into another server (own data directory, own keyring) the state is whole', async () => {
    const { key, imageId, nbId } = await populate(a);
    const snap = await exportNdjson(a);
    const b = await buildS3App();
    apps.push(b);
    // b sealed something of its own first: its sealer has a key cached.
    await b.post('/v4/object-storage/keys', { label: 'b-own' });
    const r = await importNdjson(b, snap);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await readObject(b, key)).equals(OBJECT)).toBe(true);
    expect((await imageBlob(b, imageId)).equals(IMAGE)).toBe(true);
    expect(await sealedKeyOpens(b)).toBe(KEY);
    // The imported access key still signs requests (its secret opens with the imported keyring).
    const cfgs = await b.get(`/v4/nodebalancers/${nbId}/configs`, { token: a.admin.token });
    expect(cfgs.body.data[0]).toMatchObject({ ssl_key: '<REDACTED>', protocol: 'https' });
  });

  it('importSnapshot: a stream cut short or a damaged blob is refused; nothing changes, no blob is left', async () => {
    await populate(a);
    const snap = await exportNdjson(a);
    const b = await buildS3App();
    apps.push(b);
    await b.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'b-own' });
    const lines = snap.trimEnd().split('\n');
    const cut = await importNdjson(b, `${lines.slice(0, -1).join('\n')}\n`);
    expect(cut.status).toBe(400);
    expect(cut.body.errors[0].reason).toMatch(/cut short/);
    const i = lines.findIndex((l) => l.startsWith('{"data"'));
    const damaged = [...lines];
    damaged[i] = JSON.stringify({ data: Buffer.from('not the bytes').toString('base64') });
    const bad = await importNdjson(b, `${damaged.join('\n')}\n`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].reason).toMatch(/SHA-256/);
    // Refused at its first line, with megabytes still to come: the answer still arrives.
    const newer = { ...JSON.parse(lines[0] as string), version: 3 };
    const big = [JSON.stringify(newer), ...Array(40).fill(lines[i])].join('\n');
    const refused = await importNdjson(b, `${big}\n`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/newer Stratus/);
    // The rest of that stream is never read: the connection closes after the answer instead of
    // lingering (the server's shutdown once waited 73 s for it).
    expect(refused.connection).toBe('close');
    const buckets = await b.get('/v4/object-storage/buckets');
    expect(buckets.body.data.map((x: { label: string }) => x.label)).toEqual(['b-own']);
    const left: string[] = [];
    for await (const k of b.ctx.areas.objectStorage.data.blobs.list()) left.push(k);
    expect(left).toEqual([]);
  });

  it('importSnapshot: version 1 documents (rows only, JSON) are still read', async () => {
    await a.post('/v4/volumes', { label: 'old', region: 'us-east', size: 20 });
    const doc = (await op(a, token).get('/_stratus/snapshot?bytes=false')).body;
    const { blobs: _omitted, ...v1 } = { ...doc, version: 1 };
    await a.post('/v4/volumes', { label: 'newer', region: 'us-east', size: 20 });
    const r = await op(a, token).post('/_stratus/snapshot', v1);
    expect(r.status, r.text).toBe(200);
    const vols = await a.get('/v4/volumes');
    expect(vols.body.data.map((v: { label: string }) => v.label)).toEqual(['old']);
    // The same document as one NDJSON line is read too.
    const again = await importNdjson(a, JSON.stringify(v1));
    expect(again.status).toBe(200);
  });

  it('importSnapshot: rows without their bytes (?bytes=false) are refused while this server lacks the bytes; nothing changes', async () => {
    const { key } = await populate(a);
    const rowsOnly = (await op(a, token).get('/_stratus/snapshot?bytes=false')).body;
    expect(rowsOnly.blobs).toBe('omitted');
    // Here the bytes still exist: the document imports, and the object reads back whole.
    const same = await op(a, token).post('/_stratus/snapshot', rowsOnly);
    expect(same.status, same.text).toBe(200);
    expect((await readObject(a, key)).equals(OBJECT)).toBe(true);

    // After a reset the bytes are gone: the rows would name objects without data.
    expect((await op(a, token).post('/_stratus/reset')).status).toBe(200);
    const before = (await op(a, token).get('/_stratus/snapshot?bytes=false')).body.tables;
    const r = await op(a, token).post('/_stratus/snapshot', rowsOnly);
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].field).toBe('blobs');
    expect(r.body.errors[0].reason).toMatch(
      /^The snapshot's rows refer to 2 object or image byte stream\(s\) it does not carry \(exported without bytes\) and this server does not have \((objects|images)\/[0-9a-f]{32}, (objects|images)\/[0-9a-f]{32}\)\. Export it with its bytes/,
    );
    expect(r.body.errors[0].reason).toMatch(/Nothing was imported\.$/);
    // The same answer for the document sent as NDJSON.
    const streamed = await importNdjson(a, JSON.stringify(rowsOnly));
    expect(streamed.status).toBe(400);
    expect(streamed.body.errors[0].field).toBe('blobs');
    expect((await op(a, token).get('/_stratus/snapshot?bytes=false')).body.tables).toEqual(before);
  });
});
