import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { buildS3App, CLUSTER, hostOf, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
beforeAll(async () => {
  t = await buildS3App();
});
afterAll(() => t.dispose());

const setBalance = (cents: number) =>
  t.ctx.db.db
    .updateTable('accounts')
    .set({ balance_cents: cents })
    .where('id', '=', t.admin.accountId)
    .execute();

describe('object storage clusters', () => {
  it('getObjectStorageClusters: public, one per object-storage region, domain reaches the data plane', async () => {
    const r = await t.get('/v4/object-storage/clusters', { token: null, headers: hostOf(t) });
    expect(r.status).toBe(200);
    const ids = r.body.data.map((c: { id: string }) => c.id);
    expect(ids).toContain(CLUSTER);
    const us = r.body.data.find((c: { id: string }) => c.id === CLUSTER);
    expect(us).toMatchObject({ region: 'us-east', status: 'available' });
    expect(`http://${us.domain}`).toBe(t.endpoint);
    // An anonymous ListBuckets is an empty list, as RGW answers it.
    const list = await fetch(`http://${us.domain}`);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('<Buckets></Buckets>');
  });

  it('getObjectStorageCluster: one cluster; unknown is 404', async () => {
    expect((await t.get(`/v4/object-storage/clusters/${CLUSTER}`, { token: null })).body.id).toBe(
      CLUSTER,
    );
    expect((await t.get('/v4/object-storage/clusters/nowhere-1', { token: null })).status).toBe(
      404,
    );
  });
});

describe('object storage buckets', () => {
  it('createObjectStorageBucket: creates with defaults; creating it again returns the same bucket', async () => {
    const r = await t.post(
      '/v4/object-storage/buckets',
      { cluster: CLUSTER, label: 'my-bucket' },
      { headers: hostOf(t) },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ cluster: CLUSTER, label: 'my-bucket', size: 0, objects: 0 });
    expect(r.body.hostname).toBe(`${new URL(t.endpoint).host}/_stratus/s3/${CLUSTER}/my-bucket`);
    const again = await t.post('/v4/object-storage/buckets', {
      cluster: CLUSTER,
      label: 'my-bucket',
    });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(r.body.created);
    const list = await t.get('/v4/object-storage/buckets');
    expect(list.body.data.filter((b: { label: string }) => b.label === 'my-bucket')).toHaveLength(
      1,
    );
  });

  it('createObjectStorageBucket: label rules and a required, known cluster', async () => {
    for (const label of ['ab', 'Upper', '-dash', 'dash-', 'under_score', 'x'.repeat(64)]) {
      const r = await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
      expect(r.status, label).toBe(400);
      expect(r.body.errors[0].field).toBe('label');
    }
    const r = await t.post('/v4/object-storage/buckets', {
      cluster: 'mars-1',
      label: 'fine-label',
    });
    expect(r.body.errors[0].field).toBe('cluster');
    const missing = await t.post('/v4/object-storage/buckets', {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toEqual(['label']);
    // Neither `region` nor the deprecated `cluster`: the region is asked for.
    const nowhere = await t.post('/v4/object-storage/buckets', { label: 'fine-label' });
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.errors).toEqual([{ field: 'region', reason: 'region is required' }]);
  });

  it('createObjectStorageBucket: a label is unique within its cluster only', async () => {
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'b@example.com',
      username: 'other',
    });
    const taken = await t.post(
      '/v4/object-storage/buckets',
      { cluster: CLUSTER, label: 'my-bucket' },
      { token: other.token },
    );
    expect(taken.status).toBe(400);
    expect(taken.body.errors[0].field).toBe('label');
    const elsewhere = await t.post(
      '/v4/object-storage/buckets',
      { cluster: 'eu-central-1', label: 'my-bucket' },
      { token: other.token },
    );
    expect(elsewhere.status).toBe(200);
    expect((await t.get(`/v4/object-storage/buckets/eu-central-1/my-bucket`)).status).toBe(404);
  });

  it('createObjectStorageBucket: refused while the account balance is negative', async () => {
    await setBalance(-500);
    const r = await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'in-debt' });
    await setBalance(0);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/negative balance/);
  });

  it('createObjectStorageBucket: acl must be in the enum', async () => {
    const r = await t.post('/v4/object-storage/buckets', {
      cluster: CLUSTER,
      label: 'acl-bucket',
      acl: 'custom',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('acl');
  });

  it('getObjectStorageBucketinCluster: only that cluster; unknown cluster is 404', async () => {
    await t.post('/v4/object-storage/buckets', { cluster: 'eu-central-1', label: 'eu-only' });
    const r = await t.get('/v4/object-storage/buckets/eu-central-1');
    expect(r.body.data.map((b: { label: string }) => b.label)).toEqual(['eu-only']);
    expect(r.body.results).toBe(1);
    expect((await t.get('/v4/object-storage/buckets/mars-1')).status).toBe(404);
  });

  it('updateObjectStorageBucketAccess: sets acl (custom too) and cors_enabled', async () => {
    const r = await t.put(`/v4/object-storage/buckets/${CLUSTER}/my-bucket/access`, {
      acl: 'public-read',
      cors_enabled: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    const row = await t.ctx.db.db
      .selectFrom('obj_buckets')
      .selectAll()
      .where('label', '=', 'my-bucket')
      .where('cluster', '=', CLUSTER)
      .executeTakeFirstOrThrow();
    expect(row.acl).toBe('public-read');
    expect(row.cors_enabled).toBe(1);
    const post = await t.post(`/v4/object-storage/buckets/${CLUSTER}/my-bucket/access`, {
      acl: 'custom',
    });
    expect(post.status).toBe(200);
    const bad = await t.post(`/v4/object-storage/buckets/${CLUSTER}/my-bucket/access`, {
      acl: 'world',
    });
    expect(bad.status).toBe(400);
    await t.post(`/v4/object-storage/buckets/${CLUSTER}/my-bucket/access`, {
      acl: 'private',
      cors_enabled: false,
    });
  });

  it('deleteObjectStorageBucket: refused while objects remain, then deleted', async () => {
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'doomed' });
    const url = (
      await t.post(
        `/v4/object-storage/buckets/${CLUSTER}/doomed/object-url`,
        { method: 'PUT', name: 'x', content_type: 'text/plain' },
        { headers: hostOf(t) },
      )
    ).body.url;
    expect(
      (await fetch(url, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(200);
    const refused = await t.del(`/v4/object-storage/buckets/${CLUSTER}/doomed`);
    expect(refused.status).toBe(400);
    const del = (
      await t.post(
        `/v4/object-storage/buckets/${CLUSTER}/doomed/object-url`,
        { method: 'DELETE', name: 'x' },
        { headers: hostOf(t) },
      )
    ).body.url;
    expect((await fetch(del, { method: 'DELETE' })).status).toBe(204);
    expect((await t.del(`/v4/object-storage/buckets/${CLUSTER}/doomed`)).status).toBe(200);
    expect((await t.get(`/v4/object-storage/buckets/${CLUSTER}/doomed`)).status).toBe(404);
  });

  it('getObjectStorageBuckets: needs object_storage:read_only; another account sees none', async () => {
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'c@example.com',
      username: 'third',
    });
    expect((await t.get('/v4/object-storage/buckets', { token: other.token })).body.results).toBe(
      0,
    );
    expect(
      (await t.get(`/v4/object-storage/buckets/${CLUSTER}/my-bucket`, { token: other.token }))
        .status,
    ).toBe(404);
    expect((await t.get('/v4/object-storage/buckets', { token: null })).status).toBe(401);
  });
});
