import { describe, expect, it } from 'vitest';
import type { EntitySummary, EntityType } from '../../../src/entities/entities.js';
import { createTestUser } from '../../helpers/auth.js';
import type { TestApp } from '../../helpers/build-test-app.js';
import { secondAccount, useTestApp } from './fixtures.js';

/**
 * Databases have no area: these tests declare the entity type, as an area would, backed by this
 * map of account id → entities. Longview clients are the Longview area's own.
 */
const entities = new Map<number, { database: EntitySummary[] }>();
const declared: EntityType[] = [
  {
    type: 'database',
    grant: 'database',
    url: (id) => `/v4/databases/mysql/instances/${id}`,
    list: async (_db, accountId) => entities.get(accountId)?.database ?? [],
  },
];
const ALL_TYPES = [
  'compute',
  'database',
  'domain',
  'firewall',
  'image',
  'longview',
  'nodebalancer',
  'stackscript',
  'volume',
  'vpc',
];

/** A Longview client of the admin's account (the Longview area), labelled lv-client. */
async function longviewClient(t: TestApp): Promise<number> {
  const r = await t.post('/v4/longview/clients', { label: 'lv-client' });
  expect(r.status).toBe(200);
  return r.body.id;
}

describe('grants', () => {
  const app = useTestApp({ entities: declared });

  const seed = (accountId: number) => {
    entities.set(accountId, {
      database: [
        { id: 10, label: 'setup-web' },
        { id: 11, label: 'setup-db' },
      ],
    });
  };

  it('getUserGrants: an unrestricted user has no grants: 204 without a body', async () => {
    const t = app();
    const r = await t.get('/v4/account/users/owner/grants');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('getUserGrants: a restricted user: every entity of the account, with null where no access', async () => {
    const t = app();
    seed(t.admin.accountId);
    const lv = await longviewClient(t);
    const u = await createTestUser(t, {
      grants: [{ type: 'database', id: 11, permissions: 'read_only' }],
    });
    const r = await t.get(`/v4/account/users/${u.username}/grants`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['global', ...ALL_TYPES].sort());
    expect(r.body.database).toEqual([
      { id: 10, label: 'setup-web', permissions: null },
      { id: 11, label: 'setup-db', permissions: 'read_only' },
    ]);
    expect(r.body.longview).toEqual([{ id: lv, label: 'lv-client', permissions: null }]);
    expect(r.body.global).toMatchObject({ account_access: null, add_computes: false });
  });

  it('updateUserGrants: a partial update keeps what it does not name', async () => {
    const t = app();
    seed(t.admin.accountId);
    const u = await createTestUser(t, {
      global: { add_volumes: true },
      grants: [{ type: 'database', id: 10, permissions: 'read_write' }],
    });
    const r = await t.put(`/v4/account/users/${u.username}/grants`, {
      global: { add_computes: true, account_access: 'read_only' },
      database: [{ id: 11, permissions: 'read_only' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.global).toMatchObject({
      add_computes: true,
      add_volumes: true,
      account_access: 'read_only',
    });
    expect(r.body.database).toEqual([
      { id: 10, label: 'setup-web', permissions: 'read_write' },
      { id: 11, label: 'setup-db', permissions: 'read_only' },
    ]);
    // The new global grants apply to the user's next request.
    expect((await t.get('/v4/account', { token: u.token })).status).toBe(200);
  });

  it('updateUserGrants: permissions null removes access; a change replaces the level', async () => {
    const t = app();
    seed(t.admin.accountId);
    const lv = await longviewClient(t);
    const u = await createTestUser(t, {
      grants: [
        { type: 'database', id: 10, permissions: 'read_write' },
        { type: 'longview', id: lv, permissions: 'read_only' },
      ],
    });
    const r = await t.put(`/v4/account/users/${u.username}/grants`, {
      database: [{ id: 10, permissions: null }],
      longview: [{ id: lv, permissions: 'read_write' }],
    });
    expect(r.body.database[0].permissions).toBeNull();
    expect(r.body.longview[0].permissions).toBe('read_write');
  });

  it('updateUserGrants: an id that is no entity of the account is a 400 naming each field', async () => {
    const t = app();
    seed(t.admin.accountId);
    const u = await createTestUser(t);
    const r = await t.put(`/v4/account/users/${u.username}/grants`, {
      global: { add_computes: true },
      database: [
        { id: 10, permissions: 'read_only' },
        { id: 99, permissions: 'read_only' },
      ],
      compute: [{ id: 1, permissions: 'read_write' }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'compute.0.id',
      'database.1.id',
    ]);
    // Nothing of a refused update is applied.
    const g = await t.get(`/v4/account/users/${u.username}/grants`);
    expect(g.body.global.add_computes).toBe(false);
    expect(g.body.database[0].permissions).toBeNull();
  });

  it('updateUserGrants: grants name entities of the user own account only', async () => {
    const t = app();
    seed(t.admin.accountId);
    const other = await secondAccount(t);
    entities.set(other.accountId, { database: [{ id: 50, label: 'theirs' }] });
    const u = await createTestUser(t);
    const r = await t.put(`/v4/account/users/${u.username}/grants`, {
      database: [{ id: 50, permissions: 'read_write' }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('database.0.id');
    const theirs = await t.get(`/v4/account/users/${u.username}/grants`, { token: other.token });
    expect(theirs.status).toBe(404);
    const put = await t.put(
      `/v4/account/users/${u.username}/grants`,
      { global: { add_computes: true } },
      { token: other.token },
    );
    expect(put.status).toBe(404);
  });

  it('updateUserGrants: a bad permission or type names the field', async () => {
    const t = app();
    const u = await createTestUser(t);
    const r = await t.put(`/v4/account/users/${u.username}/grants`, {
      global: { add_computes: 'yes', account_access: 'admin' },
      database: [{ id: 10, permissions: 'owner' }],
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'database.0.permissions',
      'global.account_access',
      'global.add_computes',
    ]);
  });

  it('updateUserGrants: an unrestricted user has no grants to update', async () => {
    const t = app();
    const r = await t.put('/v4/account/users/owner/grants', { global: { add_computes: true } });
    expect(r.status).toBe(400);
  });

  it('getProfileGrants: 204 without a body for an unrestricted user', async () => {
    const t = app();
    const r = await t.get('/v4/profile/grants');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('getProfileGrants: a restricted user sees only the entities it may access, with any token', async () => {
    const t = app();
    seed(t.admin.accountId);
    const u = await createTestUser(t, {
      scopes: 'events:read_only',
      global: { add_volumes: true },
      grants: [{ type: 'database', id: 11, permissions: 'read_write' }],
    });
    const r = await t.get('/v4/profile/grants', { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body.database).toEqual([{ id: 11, label: 'setup-db', permissions: 'read_write' }]);
    expect(r.body.longview).toEqual([]);
    expect(r.body.global.add_volumes).toBe(true);
  });

  it('getProfileGrants: grants on entities that no longer exist are not shown', async () => {
    const t = app();
    seed(t.admin.accountId);
    const u = await createTestUser(t, {
      grants: [{ type: 'database', id: 10, permissions: 'read_write' }],
    });
    entities.set(t.admin.accountId, { database: [] });
    expect((await t.get('/v4/profile/grants', { token: u.token })).body.database).toEqual([]);
  });
});
