import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
beforeAll(async () => {
  t = await buildS3App();
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'keyed' });
});
afterAll(() => t.dispose());

const events = async (action: string) =>
  (await t.get('/v4/account/events', { filter: { action } })).body.data;

describe('object storage keys', () => {
  it('createObjectStorageKeys: unlimited without bucket_access; the secret is shown once', async () => {
    const r = await t.post('/v4/object-storage/keys', { label: 'ci' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ label: 'ci', limited: false, bucket_access: null });
    expect(r.body.access_key).toMatch(/^[A-Z0-9]{20}$/);
    expect(r.body.secret_key).toHaveLength(40);
    const again = await t.get(`/v4/object-storage/keys/${r.body.id}`);
    expect(again.body.secret_key).toBe('[REDACTED]');
    const list = await t.get('/v4/object-storage/keys');
    expect(list.body.data.map((k: { secret_key: string }) => k.secret_key)).toEqual(['[REDACTED]']);
    const row = await t.ctx.db.db
      .selectFrom('obj_keys')
      .selectAll()
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(r.body.secret_key);
    const ev = await events('obj_access_key_create');
    expect(ev[0].entity).toBeNull();
    expect(ev[0].message).toBe(
      `Object Storage access key ${r.body.id} "ci" (${r.body.access_key})`,
    );
    expect(ev[0].status).toBe('notification');
  });

  it('createObjectStorageKeys: an empty bucket_access is a limited key with no access', async () => {
    const r = await t.post('/v4/object-storage/keys', { label: 'none', bucket_access: [] });
    expect(r.body).toMatchObject({ limited: true, bucket_access: [] });
  });

  it('createObjectStorageKeys: limited to listed buckets with their permissions', async () => {
    const r = await t.post('/v4/object-storage/keys', {
      label: 'ro',
      bucket_access: [{ cluster: CLUSTER, bucket_name: 'keyed', permissions: 'read_only' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.bucket_access).toEqual([
      { cluster: CLUSTER, region: 'us-east', bucket_name: 'keyed', permissions: 'read_only' },
    ]);
  });

  it('createObjectStorageKeys: refuses unknown buckets, clusters and permissions', async () => {
    const unknown = await t.post('/v4/object-storage/keys', {
      bucket_access: [{ cluster: CLUSTER, bucket_name: 'nope', permissions: 'read_only' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('bucket_access[0].bucket_name');
    const cluster = await t.post('/v4/object-storage/keys', {
      bucket_access: [{ cluster: 'mars-1', bucket_name: 'keyed', permissions: 'read_only' }],
    });
    expect(cluster.body.errors[0].field).toBe('bucket_access[0].cluster');
    const perm = await t.post('/v4/object-storage/keys', {
      bucket_access: [{ cluster: CLUSTER, bucket_name: 'keyed', permissions: 'admin' }],
    });
    expect(perm.status).toBe(400);
  });

  it('createObjectStorageKeys: refused while the account balance is negative', async () => {
    await t.ctx.db.db
      .updateTable('accounts')
      .set({ balance_cents: -1 })
      .where('id', '=', t.admin.accountId)
      .execute();
    const r = await t.post('/v4/object-storage/keys', { label: 'debt' });
    await t.ctx.db.db
      .updateTable('accounts')
      .set({ balance_cents: 0 })
      .where('id', '=', t.admin.accountId)
      .execute();
    expect(r.status).toBe(400);
    expect(
      (await events('obj_access_key_create')).some((e: { message: string }) =>
        e.message.includes('"debt"'),
      ),
    ).toBe(false);
  });

  it('updateObjectStorageKey: changes the label and records obj_access_key_update', async () => {
    const k = await t.post('/v4/object-storage/keys', { label: 'old' });
    const r = await t.put(`/v4/object-storage/keys/${k.body.id}`, { label: 'new' });
    expect(r.body).toMatchObject({ id: k.body.id, label: 'new', secret_key: '[REDACTED]' });
    expect((await events('obj_access_key_update'))[0].message).toContain(`${k.body.id} "new"`);
  });

  it('deleteObjectStorageKey: revokes, records obj_access_key_delete; then 404', async () => {
    const k = await t.post('/v4/object-storage/keys', { label: 'gone' });
    expect((await t.del(`/v4/object-storage/keys/${k.body.id}`)).status).toBe(200);
    expect((await t.get(`/v4/object-storage/keys/${k.body.id}`)).status).toBe(404);
    expect((await events('obj_access_key_delete'))[0].message).toContain(`${k.body.id} "gone"`);
  });

  it('getObjectStorageKeys: the internal pre-signing key is never listed', async () => {
    await t.post(`/v4/object-storage/buckets/${CLUSTER}/keyed/object-url`, {
      method: 'GET',
      name: 'x',
    });
    const list = await t.get('/v4/object-storage/keys');
    expect(list.body.data.map((k: { label: string }) => k.label)).not.toContain('pre-signed URLs');
  });

  it('getObjectStorageKeys: a token without object_storage scope is refused', async () => {
    const { createTestUser } = await import('../../helpers/auth.js');
    const u = await createTestUser(t, { restricted: false, scopes: 'volumes:read_only' });
    expect((await t.get('/v4/object-storage/keys', { token: u.token })).status).toBe(401);
    const ro = await createTestUser(t, { restricted: false, scopes: 'object_storage:read_only' });
    expect((await t.get('/v4/object-storage/keys', { token: ro.token })).status).toBe(200);
    expect(
      (await t.post('/v4/object-storage/keys', { label: 'x' }, { token: ro.token })).status,
    ).toBe(401);
  });
});
