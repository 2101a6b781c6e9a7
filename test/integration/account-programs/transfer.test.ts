import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import type { TestApp } from '../../helpers/build-test-app.js';
import { buildTestApp } from '../../helpers/build-test-app.js';
import { buildS3App, CLUSTER, type S3TestApp } from '../object-storage/fixtures.js';
import { instance } from '../transfers/fixtures.js';

describe('account network transfer', () => {
  const apps: (TestApp | S3TestApp)[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) {
      if ('dispose' in a) await a.dispose();
      else await a.close();
    }
  });

  it('getTransfer: nothing used and no quota on a new account', async () => {
    const t = await buildTestApp();
    apps.push(t);
    const r = await t.get('/v4/account/transfer');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ billable: 0, quota: 0, used: 0, region_transfers: [] });
    const ro = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect((await t.get('/v4/account/transfer', { token: ro.token })).status).toBe(200);
    const none = await createTestUser(t);
    expect((await t.get('/v4/account/transfer', { token: none.token })).status).toBe(403);
  });

  it('getTransfer: the instances sent what their statistics show; quotas prorated; regions priced apart pooled apart', async () => {
    const t = await buildTestApp();
    apps.push(t);
    t.clock.set(Date.parse('2026-03-16T00:00:00Z'));
    const east = await instance(t, { region: 'us-east', type: 'g6-standard-2' });
    const west = await instance(t, { region: 'ap-west', type: 'g6-nanode-1' });
    t.clock.advance(6 * 3600_000);
    const r = (await t.get('/v4/account/transfer')).body;
    // The sum of what each instance's own transfer view says it sent, in GB (rounded up).
    const sent = async (id: number) =>
      (await t.get(`/v4/compute/instances/${id}/transfer`)).body.used;
    const eastBytes = await sent(east.id);
    const westBytes = await sent(west.id);
    expect(eastBytes).toBeGreaterThan(0);
    expect(r.used).toBe(Math.ceil(eastBytes / 1e9));
    // g6-standard-2 includes 4000 GB a month; the instance exists for 16 of March's 31 days.
    expect(r.quota).toBe(Math.round((4000 * 16) / 31));
    expect(r.billable).toBe(Math.max(0, r.used - r.quota));
    expect(r.region_transfers).toEqual([
      {
        id: 'ap-west',
        used: Math.ceil(westBytes / 1e9),
        quota: Math.round((1000 * 16) / 31),
        billable: 0,
      },
    ]);
  });

  it('getTransfer: a deleted instance still counts for the time it ran this month', async () => {
    const t = await buildTestApp();
    apps.push(t);
    t.clock.set(Date.parse('2026-03-10T00:00:00Z'));
    const inst = await instance(t, { region: 'us-east' });
    t.clock.advance(48 * 3600_000);
    const before = (await t.get('/v4/account/transfer')).body;
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(200);
    await t.settle();
    t.clock.advance(24 * 3600_000);
    const after = (await t.get('/v4/account/transfer')).body;
    expect(after.used).toBe(before.used);
    expect(after.used).toBeGreaterThan(0);
    // Quota only for the two days it was billed.
    expect(after.quota).toBe(Math.round((1000 * 2) / 31));
  });

  it('getTransfer: object storage adds its 1 TB to the pool and what the S3 data plane sent to the use', async () => {
    const t = await buildS3App();
    apps.push(t);
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'data' });
    const key = (await t.post('/v4/object-storage/keys', { label: 'k' })).body;
    const blob = Buffer.alloc(3 * 1024 * 1024, 'z');
    const s3 = t.client(key);
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'big', Body: blob }));
    for (let i = 0; i < 3; i++) {
      const got = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'big' }));
      await got.Body?.transformToByteArray();
    }
    // The data plane counts a download once its answer has gone out.
    const sentOut = async () =>
      Number(
        (await t.ctx.db.db.selectFrom('obj_transfer').selectAll().executeTakeFirst())?.bytes_out ??
          0,
      );
    for (let i = 0; i < 50 && (await sentOut()) < 3 * blob.length; i++)
      await new Promise((res) => setTimeout(res, 20));
    const row = { bytes_out: await sentOut() };
    expect(row.bytes_out).toBeGreaterThanOrEqual(3 * blob.length);
    const r = (await t.get('/v4/account/transfer')).body;
    expect(r.used).toBe(Math.ceil(Number(row.bytes_out) / 1e9));
    // Active from its first bucket to the month's end (its billing period).
    const fact = await t.ctx.db.db
      .selectFrom('billing_facts')
      .selectAll()
      .where('kind', '=', 'object_storage')
      .executeTakeFirstOrThrow();
    const d = new Date(t.clock.nowMs());
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    const share = (end - Number(fact.from_ms)) / (end - start);
    expect(r.quota).toBe(Math.round(1000 * share));
    expect(r.quota).toBeGreaterThan(0);
  });
});
