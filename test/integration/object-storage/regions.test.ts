import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, failure, hostOf, type S3TestApp } from './fixtures.js';

/**
 * Object storage by region (docs/fidelity.md, "Object storage by region"): buckets created and
 * addressed by region, the endpoints, keys limited to regions, a bucket's access view, object
 * URLs' `exists`, and the quotas with their usage counted from the stored buckets and objects.
 */
let t: S3TestApp;
let host: Record<string, string>;
beforeAll(async () => {
  t = await buildS3App();
  host = hostOf(t);
});
afterAll(() => t.dispose());

const domainOf = (cluster: string) => `${new URL(t.base).host}/_stratus/s3/${cluster}`;

/** An S3 client for an API `s3_endpoint` (path style, as the docs say to use it). */
function clientAt(
  s3Endpoint: string,
  region: string,
  key: { access_key: string; secret_key: string },
) {
  return new S3Client({
    endpoint: `http://${s3Endpoint}`,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId: key.access_key, secretAccessKey: key.secret_key },
  });
}

/** A bucket row written straight to the database (quota fillers), without its label. */
function storedBucket(accountId: number, cluster: string) {
  return {
    account_id: accountId,
    cluster,
    acl: 'private' as const,
    cors_enabled: 0,
    ssl_cert: null,
    ssl_key_sealed: null,
    created: '2026-01-01T00:00:00',
    grants: null,
    object_lock: 0,
    versioning: null,
    lock_config: null,
    policy: null,
    cors: null,
    lifecycle: null,
    website: null,
    tags: null,
  };
}

describe('object storage by region', () => {
  it('createObjectStorageBucket: by region, with the region, its endpoint type and S3 endpoint', async () => {
    const r = await t.post(
      '/v4/object-storage/buckets',
      { region: 'us-iad', label: 'by-region', endpoint_type: null, s3_endpoint: null },
      { headers: host },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'by-region',
      region: 'us-iad',
      cluster: 'us-iad-1',
      endpoint_type: 'E1',
      s3_endpoint: domainOf('us-iad-1'),
      objects: 0,
      size: 0,
    });
    // The cluster form still works and answers the same fields.
    const legacy = await t.post(
      '/v4/object-storage/buckets',
      { cluster: 'us-east-1', label: 'by-cluster' },
      { headers: host },
    );
    expect(legacy.body).toMatchObject({ region: 'us-east', endpoint_type: 'E0' });
    // The S3 endpoint reaches the data plane: a key's client writes and reads there.
    const key = await t.post('/v4/object-storage/keys', { label: 'region-writer' });
    const s3 = clientAt(r.body.s3_endpoint, 'us-iad-1', key.body);
    await s3.send(new PutObjectCommand({ Bucket: 'by-region', Key: 'a.txt', Body: 'hello' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'by-region', Key: 'a.txt' }));
    expect(await got.Body?.transformToString()).toBe('hello');
    s3.destroy();
  });

  it('createObjectStorageBucket: a region without Object Storage, a cluster of another region, another endpoint type or S3 endpoint are refused', async () => {
    const fields = async (body: object) => {
      const r = await t.post('/v4/object-storage/buckets', body, { headers: host });
      expect(r.status).toBe(400);
      return r.body.errors.map((e: { field: string }) => e.field);
    };
    expect(await fields({ region: 'us-west', label: 'nope-1' })).toEqual(['region']);
    expect(await fields({ region: 'us-iad', cluster: 'us-east-1', label: 'nope-2' })).toEqual([
      'cluster',
    ]);
    expect(await fields({ region: 'us-iad', endpoint_type: 'E3', label: 'nope-3' })).toEqual([
      'endpoint_type',
    ]);
    expect(
      await fields({ region: 'us-iad', s3_endpoint: domainOf('us-east-1'), label: 'nope-4' }),
    ).toEqual(['s3_endpoint']);
    // Nothing was made.
    const labels = (await t.get('/v4/object-storage/buckets')).body.data.map(
      (b: { label: string }) => b.label,
    );
    expect(labels.filter((l: string) => l.startsWith('nope'))).toEqual([]);
  });

  it('getObjectStorageBucket: a bucket is addressed by its region as by its cluster; an unknown one is 404', async () => {
    await t.post('/v4/object-storage/buckets', { region: 'eu-central', label: 'addressed' });
    const byRegion = await t.get('/v4/object-storage/buckets/eu-central/addressed');
    const byCluster = await t.get('/v4/object-storage/buckets/eu-central-1/addressed');
    expect(byRegion.status).toBe(200);
    expect(byRegion.body).toEqual(byCluster.body);
    const inRegion = await t.get('/v4/object-storage/buckets/eu-central');
    expect(inRegion.body.data.map((b: { label: string }) => b.label)).toEqual(['addressed']);
    expect(
      (await t.get('/v4/object-storage/buckets/eu-central/addressed/object-list')).status,
    ).toBe(200);
    const missing = await t.get('/v4/object-storage/buckets/us-west-1/addressed');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      errors: [
        { reason: 'The specified region was not found or does not support Object Storage.' },
      ],
    });
    expect((await t.del('/v4/object-storage/buckets/eu-central/addressed')).status).toBe(200);
    expect((await t.get('/v4/object-storage/buckets/eu-central-1/addressed')).status).toBe(404);
  });

  it('getObjectStorageBucketAccess: the canned ACL, its grants and CORS, as changed through PUT', async () => {
    await t.post('/v4/object-storage/buckets', {
      region: 'us-southeast',
      label: 'access-view',
      acl: 'authenticated-read',
    });
    const r = await t.get('/v4/object-storage/buckets/us-southeast/access-view/access');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      acl: 'authenticated-read',
      cors_enabled: false,
      cors_xml: null,
    });
    expect(r.body.acl_xml).toContain('http://acs.amazonaws.com/groups/global/AuthenticatedUsers');
    await t.put('/v4/object-storage/buckets/us-southeast/access-view/access', {
      acl: 'private',
      cors_enabled: true,
    });
    const after = await t.get('/v4/object-storage/buckets/us-southeast/access-view/access');
    expect(after.body).toMatchObject({ acl: 'private', cors_enabled: true });
    expect(after.body.acl_xml).not.toContain('AuthenticatedUsers');
  });

  it('createObjectStorageObjectURL: `exists` says whether the object is there', async () => {
    await t.post('/v4/object-storage/buckets', { region: 'ap-south', label: 'url-exists' });
    const url = (name: string, method = 'GET') =>
      t.post(
        '/v4/object-storage/buckets/ap-south/url-exists/object-url',
        { name, method, ...(method === 'PUT' ? { content_type: 'text/plain' } : {}) },
        { headers: host },
      );
    expect((await url('x.txt')).body.exists).toBe(false);
    const put = await url('x.txt', 'PUT');
    expect(put.body.exists).toBe(false);
    const w = await fetch(put.body.url, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(w.status).toBe(200);
    const get = await url('x.txt');
    expect(get.body.exists).toBe(true);
    expect(get.body.url).toContain('/_stratus/s3/ap-south-1/url-exists/x.txt');
  });
});

describe('object storage endpoints', () => {
  it('getObjectStorageEndpoints: each Object Storage region with its endpoint type and S3 endpoint', async () => {
    const r = await t.get('/v4/object-storage/endpoints', { headers: host });
    expect(r.status).toBe(200);
    const clusters = (await t.get('/v4/object-storage/clusters', { token: null })).body.data;
    expect(r.body.results).toBe(clusters.length);
    expect(r.body.data).toContainEqual({
      region: 'us-east',
      endpoint_type: 'E0',
      s3_endpoint: domainOf('us-east-1'),
    });
    expect(r.body.data).toContainEqual({
      region: 'us-iad',
      endpoint_type: 'E1',
      s3_endpoint: domainOf('us-iad-1'),
    });
  });
});

describe('object storage keys by region', () => {
  it('createObjectStorageKeys: without regions a key works in every region; with them, in those only', async () => {
    const all = await t.post('/v4/object-storage/keys', { label: 'everywhere', regions: null });
    const clusters = (await t.get('/v4/object-storage/clusters', { token: null })).body.data;
    expect(all.body.regions.map((x: { id: string }) => x.id).sort()).toEqual(
      clusters.map((c: { region: string }) => c.region).sort(),
    );
    const r = await t.post(
      '/v4/object-storage/keys',
      { label: 'iad-only', regions: ['us-iad'] },
      { headers: host },
    );
    expect(r.status).toBe(200);
    expect(r.body.regions).toEqual([
      { id: 'us-iad', s3_endpoint: domainOf('us-iad-1'), endpoint_type: 'E1' },
    ]);
    expect((await t.get(`/v4/object-storage/keys/${r.body.id}`)).body.regions).toHaveLength(1);
    // The data plane: the key is unknown outside its regions (RGW: InvalidAccessKeyId).
    const iad = clientAt(domainOf('us-iad-1'), 'us-iad-1', r.body);
    expect((await iad.send(new ListBucketsCommand({}))).Buckets).toBeDefined();
    // Signed for the region's id (a client set up from a bucket's `region`): the same endpoint.
    const byRegion = clientAt(domainOf('us-iad-1'), 'us-iad', r.body);
    expect((await byRegion.send(new ListBucketsCommand({}))).Buckets).toBeDefined();
    byRegion.destroy();
    const wrong = clientAt(domainOf('us-iad-1'), 'us-east', r.body);
    expect((await failure(wrong.send(new ListBucketsCommand({})))).name).toBe(
      'AuthorizationHeaderMalformed',
    );
    wrong.destroy();
    const east = clientAt(domainOf('us-east-1'), 'us-east-1', r.body);
    expect((await failure(east.send(new ListBucketsCommand({})))).name).toBe('InvalidAccessKeyId');
    iad.destroy();
    east.destroy();
  });

  it('createObjectStorageKeys: unknown or repeated regions, and buckets outside the key regions, are refused', async () => {
    await t.post('/v4/object-storage/buckets', { region: 'us-east', label: 'key-target' });
    const bad = await t.post('/v4/object-storage/keys', {
      regions: ['us-west', 'us-iad', 'us-iad'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'regions[0]',
      'regions[2]',
    ]);
    const outside = await t.post('/v4/object-storage/keys', {
      regions: ['us-iad'],
      bucket_access: [{ region: 'us-east', bucket_name: 'key-target', permissions: 'read_only' }],
    });
    expect(outside.status).toBe(400);
    expect(outside.body.errors[0].field).toBe('bucket_access[0].region');
    const ok = await t.post('/v4/object-storage/keys', {
      regions: ['us-east'],
      bucket_access: [{ region: 'us-east', bucket_name: 'key-target', permissions: 'read_only' }],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.bucket_access).toEqual([
      {
        cluster: 'us-east-1',
        region: 'us-east',
        bucket_name: 'key-target',
        permissions: 'read_only',
      },
    ]);
    expect(ok.body.limited).toBe(true);
  });

  it('updateObjectStorageKey: regions are replaced; a limited key keeps the regions of its buckets', async () => {
    await t.post('/v4/object-storage/buckets', { region: 'us-east', label: 'kept-bucket' });
    const k = await t.post('/v4/object-storage/keys', {
      regions: ['us-east'],
      bucket_access: [{ region: 'us-east', bucket_name: 'kept-bucket', permissions: 'read_write' }],
    });
    const up = await t.put(
      `/v4/object-storage/keys/${k.body.id}`,
      { regions: ['us-east', 'us-iad'] },
      { headers: host },
    );
    expect(up.status).toBe(200);
    expect(up.body.regions.map((x: { id: string }) => x.id)).toEqual(['us-east', 'us-iad']);
    const drop = await t.put(`/v4/object-storage/keys/${k.body.id}`, { regions: ['us-iad'] });
    expect(drop.status).toBe(400);
    expect(drop.body.errors[0].field).toBe('regions');
    const still = await t.get(`/v4/object-storage/keys/${k.body.id}`);
    expect(still.body.regions.map((x: { id: string }) => x.id)).toEqual(['us-east', 'us-iad']);
  });
});

describe('object storage quotas', () => {
  it('getObjectStorageQuotas: each endpoint quota, one by one, with usage counted from the buckets', async () => {
    const list = await t.get('/v4/object-storage/quotas?page_size=500', { headers: host });
    expect(list.status).toBe(200);
    const clusters = (await t.get('/v4/object-storage/clusters', { token: null })).body.data;
    expect(list.body.results).toBe(clusters.length * 7);
    const q = list.body.data.find(
      (x: { quota_id: string }) => x.quota_id === 'obj-objects-us-iad-1',
    );
    expect(q).toEqual({
      quota_id: 'obj-objects-us-iad-1',
      quota_name: 'Number of Objects',
      quota_type: 'obj-objects',
      endpoint_type: 'E1',
      s3_endpoint: domainOf('us-iad-1'),
      description: 'Current number of objects per account, per endpoint',
      quota_limit: 100000000,
      resource_metric: 'object',
      has_usage: true,
    });
    expect(
      (await t.get('/v4/object-storage/quotas/obj-objects-us-iad-1', { headers: host })).body,
    ).toEqual(q);
    // us-iad holds `by-region` (one 5-byte object), made above.
    const usage = (id: string) => t.get(`/v4/object-storage/quotas/${id}-us-iad-1/usage`);
    expect((await usage('obj-objects')).body).toEqual({ quota_limit: 100000000, usage: 1 });
    expect((await usage('obj-bytes')).body).toEqual({ quota_limit: 109951162777600, usage: 5 });
    expect((await usage('obj-buckets')).body).toEqual({ quota_limit: 1000, usage: 1 });
    const none = await usage('obj-total-egress-throughput');
    expect(none.status).toBe(400);
    expect((await t.get('/v4/object-storage/quotas/obj-objects-mars-1')).status).toBe(404);
  });

  it('getObjectStorageGlobalQuotas: the keys quota, its usage the account keys (not the internal one)', async () => {
    const list = await t.get('/v4/object-storage/global-quotas');
    expect(list.body.data).toEqual([
      {
        quota_id: 'keys',
        quota_name: 'Number of Access Keys',
        quota_type: 'keys',
        description: 'Current number of access keys per account',
        quota_limit: 100,
        resource_metric: 'key',
        has_usage: true,
      },
    ]);
    expect((await t.get('/v4/object-storage/global-quotas/keys')).body).toEqual(list.body.data[0]);
    const keys = (await t.get('/v4/object-storage/keys')).body.results;
    expect((await t.get('/v4/object-storage/global-quotas/keys/usage')).body).toEqual({
      quota_limit: 100,
      usage: keys,
    });
    expect((await t.get('/v4/object-storage/global-quotas/nope')).status).toBe(404);
  });

  it('createObjectStorageKeys: the 101st key of an account is refused (the keys quota)', async () => {
    const have = (await t.get('/v4/object-storage/keys')).body.results as number;
    const rows = Array.from({ length: 100 - have }, (_, i) => ({
      account_id: t.admin.accountId,
      user_id: null,
      label: `filler-${i}`,
      access_key: `FILLER${String(i).padStart(14, '0')}`,
      secret_sealed: 'x',
      limited: 0,
      system: 0,
      regions: null,
      created: '2026-01-01T00:00:00',
    }));
    await t.ctx.db.db.insertInto('obj_keys').values(rows).execute();
    const r = await t.post('/v4/object-storage/keys', { label: 'one-too-many' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toContain('limit of 100');
    await t.ctx.db.db.deleteFrom('obj_keys').where('label', 'like', 'filler-%').execute();
    expect((await t.post('/v4/object-storage/keys', { label: 'fits-again' })).status).toBe(200);
  });

  it('createObjectStorageBucket: the 1001st bucket of an endpoint is refused, through the API and S3', async () => {
    const have = Number(
      (await t.get('/v4/object-storage/quotas/obj-buckets-eu-south-1/usage')).body.usage,
    );
    const rows = Array.from({ length: 1000 - have }, (_, i) => ({
      ...storedBucket(t.admin.accountId, 'eu-south-1'),
      label: `filler-${i}`,
    }));
    await t.ctx.db.db.insertInto('obj_buckets').values(rows).execute();
    const r = await t.post('/v4/object-storage/buckets', { region: 'eu-south', label: 'too-many' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toContain('limit of 1000');
    const key = await t.post('/v4/object-storage/keys', { label: 'bucket-maker' });
    const s3 = clientAt(domainOf('eu-south-1'), 'eu-south-1', key.body);
    expect((await failure(s3.send(new CreateBucketCommand({ Bucket: 'too-many' })))).name).toBe(
      'TooManyBuckets',
    );
    // Another endpoint has its own count.
    expect(
      (await t.post('/v4/object-storage/buckets', { region: 'us-iad', label: 'too-many' })).status,
    ).toBe(200);
    s3.destroy();
    await t.ctx.db.db.deleteFrom('obj_buckets').where('label', 'like', 'filler-%').execute();
  });

  it('PutObject: over the objects or bytes quota of the endpoint is 403 QuotaExceeded, nothing stored', async () => {
    await t.post('/v4/object-storage/buckets', { region: 'us-central', label: 'quota-target' });
    const filler = storedBucket(t.admin.accountId, 'us-central-1');
    // Counters of another bucket of the account in the endpoint, at the edge of each quota.
    await t.ctx.db.db
      .insertInto('obj_buckets')
      .values({ ...filler, label: 'filler-bytes', size: 109951162777600 - 4, objects: 1 })
      .execute();
    const key = await t.post('/v4/object-storage/keys', { label: 'quota-writer' });
    const s3 = clientAt(domainOf('us-central-1'), 'us-central-1', key.body);
    const put = () =>
      failure(
        s3.send(new PutObjectCommand({ Bucket: 'quota-target', Key: 'q.txt', Body: 'hello' })),
      );
    expect(await put()).toMatchObject({ name: 'QuotaExceeded', status: 403 });
    await t.ctx.db.db
      .updateTable('obj_buckets')
      .set({ size: 0, objects: 100000000 })
      .where('label', '=', 'filler-bytes')
      .execute();
    expect(await put()).toMatchObject({ name: 'QuotaExceeded', status: 403 });
    expect(
      (await t.get('/v4/object-storage/buckets/us-central/quota-target/object-list')).body.data,
    ).toEqual([]);
    await t.ctx.db.db.deleteFrom('obj_buckets').where('label', '=', 'filler-bytes').execute();
    expect((await put()).name).toBe('no error');
    s3.destroy();
  });
});
