import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { changed, StateDigest } from '../../fuzz/fixtures.js';
import { CERT, KEY } from './certs.js';

/**
 * The object storage permission model (docs/fidelity.md, "Object storage: who may do what"):
 * buckets, objects and keys have no per-entity grants, so a restricted user's access follows
 * the account-level grant `account_access`: none refuses everything (the clusters are public),
 * `read_only` allows the reads, `read_write` everything, `POST /object-storage/cancel` included.
 */

const CLUSTER = 'us-east-1';
const B = `/v4/object-storage/buckets/${CLUSTER}/perm-bucket`;
const UNAUTHORIZED = { errors: [{ reason: 'Unauthorized' }] };

interface Op {
  operationId: string;
  method: string;
  url: (s: Setup) => string;
  body?: (s: Setup) => unknown;
}
interface Setup {
  ownerKeyId: number;
}

/** The reads, in any order. */
const READS: Op[] = [
  {
    operationId: 'getObjectStorageBuckets',
    method: 'GET',
    url: () => '/v4/object-storage/buckets',
  },
  {
    operationId: 'getObjectStorageBucketinCluster',
    method: 'GET',
    url: () => `/v4/object-storage/buckets/${CLUSTER}`,
  },
  { operationId: 'getObjectStorageBucket', method: 'GET', url: () => B },
  { operationId: 'getObjectStorageBucketAccess', method: 'GET', url: () => `${B}/access` },
  { operationId: 'getObjectStorageQuotas', method: 'GET', url: () => '/v4/object-storage/quotas' },
  {
    operationId: 'getObjectStorageQuota',
    method: 'GET',
    url: () => `/v4/object-storage/quotas/obj-objects-${CLUSTER}`,
  },
  {
    operationId: 'getObjectStorageQuotaUsage',
    method: 'GET',
    url: () => `/v4/object-storage/quotas/obj-objects-${CLUSTER}/usage`,
  },
  {
    operationId: 'getObjectStorageGlobalQuotas',
    method: 'GET',
    url: () => '/v4/object-storage/global-quotas',
  },
  {
    operationId: 'getObjectStorageGlobalQuota',
    method: 'GET',
    url: () => '/v4/object-storage/global-quotas/keys',
  },
  {
    operationId: 'getObjectStorageGlobalQuotaUsage',
    method: 'GET',
    url: () => '/v4/object-storage/global-quotas/keys/usage',
  },
  {
    operationId: 'viewObjectStorageBucketACL',
    method: 'GET',
    url: () => `${B}/object-acl?name=o.txt`,
  },
  { operationId: 'getObjectStorageBucketContent', method: 'GET', url: () => `${B}/object-list` },
  { operationId: 'getObjectStorageSSL', method: 'GET', url: () => `${B}/ssl` },
  {
    operationId: 'getObjectStorageTransfer',
    method: 'GET',
    url: () => '/v4/object-storage/transfer',
  },
  { operationId: 'getObjectStorageKeys', method: 'GET', url: () => '/v4/object-storage/keys' },
  {
    operationId: 'getObjectStorageKey',
    method: 'GET',
    url: (s) => `/v4/object-storage/keys/${s.ownerKeyId}`,
  },
];

/** The writes, in an order in which every one succeeds for a user allowed to make it. */
const WRITES: Op[] = [
  {
    operationId: 'createObjectStorageBucket',
    method: 'POST',
    url: () => '/v4/object-storage/buckets',
    body: () => ({ cluster: CLUSTER, label: 'made-by-user' }),
  },
  {
    operationId: 'modifyObjectStorageBucketAccess',
    method: 'POST',
    url: () => `${B}/access`,
    body: () => ({ acl: 'public-read' }),
  },
  {
    operationId: 'updateObjectStorageBucketAccess',
    method: 'PUT',
    url: () => `${B}/access`,
    body: () => ({ cors_enabled: true }),
  },
  {
    operationId: 'updateObjectStorageBucketACL',
    method: 'PUT',
    url: () => `${B}/object-acl`,
    body: () => ({ name: 'o.txt', acl: 'public-read' }),
  },
  {
    operationId: 'createObjectStorageObjectURL',
    method: 'POST',
    url: () => `${B}/object-url`,
    body: () => ({ name: 'o.txt', method: 'GET' }),
  },
  {
    operationId: 'createObjectStorageSSL',
    method: 'POST',
    url: () => `${B}/ssl`,
    body: () => ({ certificate: CERT, private_key: KEY }),
  },
  { operationId: 'deleteObjectStorageSSL', method: 'DELETE', url: () => `${B}/ssl` },
  {
    operationId: 'createObjectStorageKeys',
    method: 'POST',
    url: () => '/v4/object-storage/keys',
    body: () => ({ label: 'users-own' }),
  },
  {
    operationId: 'updateObjectStorageKey',
    method: 'PUT',
    url: (s) => `/v4/object-storage/keys/${s.ownerKeyId}`,
    body: () => ({ label: 'renamed' }),
  },
  {
    // The owner's key: revoking another user's key.
    operationId: 'deleteObjectStorageKey',
    method: 'DELETE',
    url: (s) => `/v4/object-storage/keys/${s.ownerKeyId}`,
  },
  {
    operationId: 'deleteObjectStorageBucket',
    method: 'DELETE',
    url: () => `/v4/object-storage/buckets/${CLUSTER}/made-by-user`,
  },
  { operationId: 'cancelObjectStorage', method: 'POST', url: () => '/v4/object-storage/cancel' },
];

const PUBLIC: Op[] = [
  {
    operationId: 'getObjectStorageClusters',
    method: 'GET',
    url: () => '/v4/object-storage/clusters',
  },
  {
    operationId: 'getObjectStorageCluster',
    method: 'GET',
    url: () => `/v4/object-storage/clusters/${CLUSTER}`,
  },
  { operationId: 'getObjectStorageTypes', method: 'GET', url: () => '/v4/object-storage/types' },
  // The catalogue's endpoints (the token's scope applies; no grant: they show no account data).
  {
    operationId: 'getObjectStorageEndpoints',
    method: 'GET',
    url: () => '/v4/object-storage/endpoints',
  },
];

/** A bucket with one object (written through a pre-signed URL) and an owner's key. */
async function setup(t: TestApp): Promise<Setup> {
  // Inside the test certificate's validity.
  t.clock.set(Date.parse('2027-01-01T00:00:00Z'));
  expect(
    (await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'perm-bucket' })).status,
  ).toBe(200);
  const put = await t.post(`${B}/object-url`, {
    name: 'o.txt',
    method: 'PUT',
    content_type: 'text/plain',
  });
  const u = new URL(put.body.url);
  const r = await t.app.inject({
    method: 'PUT',
    url: `${u.pathname}${u.search}`,
    headers: { host: u.host, 'content-type': 'text/plain' },
    payload: 'hello',
  });
  expect(r.statusCode).toBe(200);
  const key = await t.post('/v4/object-storage/keys', { label: 'owners' });
  return { ownerKeyId: key.body.id };
}

const send = (t: TestApp, s: Setup, op: Op, token: string) =>
  t.request(op.method, op.url(s), {
    token,
    ...(op.body ? { body: op.body(s) } : {}),
  });

describe('object storage permissions of restricted users', () => {
  let t: TestApp;
  let s: Setup;
  beforeEach(async () => {
    t = await buildTestApp();
    s = await setup(t);
  });
  afterEach(async () => {
    await t.close();
  });

  it('every object storage operation of the generated document is covered here', async () => {
    const doc = (await t.get('/v4/openapi.json', { token: null })).body as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const served = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/object-storage'))
      .flatMap(([, ops]) => Object.values(ops).map((o) => o.operationId))
      .sort();
    const covered = [...READS, ...WRITES, ...PUBLIC].map((o) => o.operationId).sort();
    expect(covered).toEqual(served);
  });

  it('every object storage operation: a restricted user without grants is refused (403), state unchanged', async () => {
    const u = await createTestUser(t);
    const digest = new StateDigest(t);
    await digest.init();
    const before = await digest.take();
    const failures: string[] = [];
    for (const op of [...READS, ...WRITES]) {
      const r = await send(t, s, op, u.token);
      if (r.status !== 403 || JSON.stringify(r.body) !== JSON.stringify(UNAUTHORIZED))
        failures.push(`${op.operationId}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
    expect(changed(before, await digest.take())).toEqual([]);
    for (const op of PUBLIC)
      expect((await send(t, s, op, u.token)).status, op.operationId).toBe(200);
  });

  it('every object storage operation: account_access read_only reads, every write is 403', async () => {
    const u = await createTestUser(t, { global: { account_access: 'read_only' } });
    const failures: string[] = [];
    for (const op of READS) {
      const r = await send(t, s, op, u.token);
      if (r.status !== 200) failures.push(`${op.operationId}: ${r.status} ${r.text}`);
    }
    const digest = new StateDigest(t);
    await digest.init();
    const before = await digest.take();
    for (const op of WRITES) {
      const r = await send(t, s, op, u.token);
      if (r.status !== 403) failures.push(`${op.operationId}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
    expect(changed(before, await digest.take())).toEqual([]);
    // Reads never show a key's secret.
    const keys = await t.get('/v4/object-storage/keys', { token: u.token });
    expect(keys.body.data.map((k: { secret_key: string }) => k.secret_key)).toEqual(['[REDACTED]']);
  });

  it('every object storage operation: account_access read_write may make each one', async () => {
    const u = await createTestUser(t, { global: { account_access: 'read_write' } });
    const failures: string[] = [];
    for (const op of [...READS, ...WRITES]) {
      const r = await send(t, s, op, u.token);
      if (r.status !== 200) failures.push(`${op.operationId}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
    // Cancel (the last write) removed every bucket.
    expect((await t.get('/v4/object-storage/buckets')).body.results).toBe(0);
  });

  it('cancelObjectStorage: a read_only user cannot remove the buckets; they stay', async () => {
    const u = await createTestUser(t, { global: { account_access: 'read_only' } });
    const r = await t.post('/v4/object-storage/cancel', undefined, { token: u.token });
    expect(r.status).toBe(403);
    expect(
      (await t.get(`${B}/object-list`)).body.data.map((o: { name: string }) => o.name),
    ).toEqual(['o.txt']);
  });

  it('the other global grants do not open object storage', async () => {
    const u = await createTestUser(t, {
      global: {
        add_computes: true,
        add_volumes: true,
        add_images: true,
        add_firewalls: true,
        add_vpcs: true,
        cancel_account: true,
      },
    });
    expect(
      (await t.post('/v4/object-storage/keys', { label: 'x' }, { token: u.token })).status,
    ).toBe(403);
    expect((await t.get('/v4/object-storage/buckets', { token: u.token })).status).toBe(403);
  });
});
