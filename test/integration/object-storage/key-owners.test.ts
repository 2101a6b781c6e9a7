import { ListBucketsCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildS3App, CLUSTER, type S3TestApp } from './fixtures.js';

/**
 * A key acts for the user who created it: it goes with the user, and a restricted creator's key
 * works only while the creator keeps the grant that creating it needed (account_access
 * read_write). Without this, a restricted user could keep full S3 access after losing it.
 */
let t: S3TestApp;

async function errorName(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { name: string }).name;
  }
  return 'ok';
}

const list = (c: S3Client) => errorName(c.send(new ListBucketsCommand({})));

async function keyOf(token: string): Promise<{ id: number; client: S3Client }> {
  const r = await t.post('/v4/object-storage/keys', { label: 'mine' }, { token });
  expect(r.status).toBe(200);
  return { id: r.body.id, client: t.client(r.body) };
}

const setAccess = (username: string, account_access: 'read_only' | 'read_write' | null) =>
  t.put(`/v4/account/users/${username}/grants`, { global: { account_access } });

beforeAll(async () => {
  t = await buildS3App();
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'owned' });
});
afterAll(() => t.dispose());

describe('object storage keys and the users who create them', () => {
  it("createObjectStorageKeys: a restricted user's key works while the user keeps account_access read_write", async () => {
    const u = await createTestUser(t, { global: { account_access: 'read_write' } });
    const key = await keyOf(u.token);
    expect(await list(key.client)).toBe('ok');
    expect((await setAccess(u.username, 'read_only')).status).toBe(200);
    expect(await list(key.client)).toBe('InvalidAccessKeyId');
    expect((await setAccess(u.username, null)).status).toBe(200);
    expect(await list(key.client)).toBe('InvalidAccessKeyId');
    // The key is still listed (an unrestricted user may revoke it), and works again when the
    // grant comes back.
    expect((await t.get(`/v4/object-storage/keys/${key.id}`)).status).toBe(200);
    expect((await setAccess(u.username, 'read_write')).status).toBe(200);
    expect(await list(key.client)).toBe('ok');
  });

  it("deleteUser: the user's object storage keys are revoked with it; other keys stay", async () => {
    const u = await createTestUser(t, { global: { account_access: 'read_write' } });
    const other = await createTestUser(t, { restricted: false });
    const gone = await keyOf(u.token);
    const kept = await keyOf(other.token);
    const owners = await keyOf(t.admin.token);
    expect((await t.del(`/v4/account/users/${u.username}`)).status).toBe(200);
    expect((await t.get(`/v4/object-storage/keys/${gone.id}`)).status).toBe(404);
    expect(await list(gone.client)).toBe('InvalidAccessKeyId');
    expect(await list(kept.client)).toBe('ok');
    expect(await list(owners.client)).toBe('ok');
  });

  it('updateUser: an unrestricted user made restricted (no grants) can no longer use its keys', async () => {
    const u = await createTestUser(t, { restricted: false });
    const key = await keyOf(u.token);
    expect(await list(key.client)).toBe('ok');
    expect((await t.put(`/v4/account/users/${u.username}`, { restricted: true })).status).toBe(200);
    expect(await list(key.client)).toBe('InvalidAccessKeyId');
  });
});
