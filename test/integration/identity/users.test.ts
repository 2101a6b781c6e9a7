import { describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { secondAccount, sshKey, useTestApp } from './fixtures.js';

describe('account users', () => {
  const app = useTestApp();

  it('createUser: creates a user of the caller account and records user_create', async () => {
    const t = app();
    const r = await t.post('/v4/account/users', {
      username: 'alice-1',
      email: 'alice@example.com',
      restricted: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      username: 'alice-1',
      email: 'alice@example.com',
      restricted: true,
      ssh_keys: [],
      tfa_enabled: false,
      verified_phone_number: null,
      password_created: null,
      last_login: null,
      user_type: 'default',
    });
    expect((await t.get('/v4/account/users/alice-1')).body.username).toBe('alice-1');
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({
      action: 'user_create',
      username: 'owner',
      entity: { type: 'user', label: 'alice-1', url: '/v4/account/users/alice-1' },
    });
  });

  it('createUser: restricted defaults to false', async () => {
    const t = app();
    const r = await t.post('/v4/account/users', { username: 'bob', email: 'bob@example.com' });
    expect(r.body.restricted).toBe(false);
  });

  it('createUser: username and email are required, and every failing field is named', async () => {
    const t = app();
    const r = await t.post('/v4/account/users', {});
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'username',
    ]);
    const both = await t.post('/v4/account/users', { username: 'a', email: 'nope' });
    expect(both.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'username',
    ]);
  });

  it('createUser: enforces the username rules', async () => {
    const t = app();
    for (const bad of [
      'ab',
      'a'.repeat(33),
      '-abc',
      'abc_',
      'a--b',
      'a__b',
      'a-_b',
      'a.b',
      'a b',
    ]) {
      const r = await t.post('/v4/account/users', { username: bad, email: 'x@example.com' });
      expect(r.status, bad).toBe(400);
      expect(r.body.errors[0].field).toBe('username');
    }
    for (const good of ['abc', 'a'.repeat(32), 'a-b_c', 'A1-b2_C3']) {
      const r = await t.post('/v4/account/users', { username: good, email: 'x@example.com' });
      expect(r.status, good).toBe(200);
    }
  });

  it('createUser: usernames are unique across accounts and regardless of case', async () => {
    const t = app();
    await secondAccount(t, 'taken-name');
    const r = await t.post('/v4/account/users', { username: 'taken-name', email: 'x@example.com' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ field: 'username', reason: 'Username is already taken' }]);
    const upper = await t.post('/v4/account/users', { username: 'OWNER', email: 'x@example.com' });
    expect(upper.status).toBe(400);
  });

  it('getUsers: lists the account users only, with their SSH key labels, filterable by username', async () => {
    const t = app();
    const other = await secondAccount(t);
    await t.post('/v4/account/users', { username: 'carol', email: 'c@example.com' });
    await t.post('/v4/profile/sshkeys', { label: 'laptop', ssh_key: sshKey('ed25519') });
    const r = await t.get('/v4/account/users');
    expect(r.status).toBe(200);
    expect(r.body.results).toBe(2);
    expect(r.body.data.map((u: { username: string }) => u.username)).toEqual(['owner', 'carol']);
    expect(r.body.data[0].ssh_keys).toEqual(['laptop']);
    const filtered = await t.get('/v4/account/users', { filter: { username: 'carol' } });
    expect(filtered.body.data).toHaveLength(1);
    const theirs = await t.get('/v4/account/users', { token: other.token });
    expect(theirs.body.data.map((u: { username: string }) => u.username)).toEqual(['other-owner']);
  });

  it('getUser: a user of another account is not found', async () => {
    const t = app();
    const other = await secondAccount(t);
    expect((await t.get('/v4/account/users/other-owner')).status).toBe(404);
    expect((await t.put('/v4/account/users/other-owner', { email: 'a@b.co' })).status).toBe(404);
    expect((await t.del('/v4/account/users/other-owner')).status).toBe(404);
    expect((await t.get('/v4/account/users/owner', { token: other.token })).status).toBe(404);
  });

  it('getUsers: restricted users get 403 on every user and grants endpoint', async () => {
    const t = app();
    const u = await createTestUser(t, { global: { account_access: 'read_write' } });
    const calls: [string, string, unknown?][] = [
      ['GET', '/v4/account/users'],
      ['POST', '/v4/account/users', { username: 'newbie', email: 'n@example.com' }],
      ['GET', '/v4/account/users/owner'],
      ['PUT', '/v4/account/users/owner', { email: 'x@example.com' }],
      ['DELETE', '/v4/account/users/owner'],
      ['GET', `/v4/account/users/${u.username}/grants`],
      ['PUT', `/v4/account/users/${u.username}/grants`, { global: { add_computes: true } }],
    ];
    for (const [method, url, body] of calls) {
      const r = await t.request(method, url, { token: u.token, ...(body ? { body } : {}) });
      expect(r.status, `${method} ${url}`).toBe(403);
      expect(r.body.errors[0].reason).toBe('Unauthorized');
    }
    expect((await t.get('/v4/account/users/owner')).body.email).toBe('owner@example.com');
  });

  it('updateUser: changes username and email and records user_update', async () => {
    const t = app();
    await t.post('/v4/account/users', { username: 'dave', email: 'd@example.com' });
    const r = await t.put('/v4/account/users/dave', {
      username: 'david',
      email: 'david@example.com',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ username: 'david', email: 'david@example.com' });
    expect((await t.get('/v4/account/users/dave')).status).toBe(404);
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({
      action: 'user_update',
      username: 'owner',
      entity: { label: 'david' },
    });
  });

  it('updateUser: a new username follows the rules and must be free', async () => {
    const t = app();
    await t.post('/v4/account/users', { username: 'erin', email: 'e@example.com' });
    const bad = await t.put('/v4/account/users/erin', { username: 'e', email: 'bad' });
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'username',
    ]);
    const taken = await t.put('/v4/account/users/erin', { username: 'Owner' });
    expect(taken.status).toBe(400);
    expect(taken.body.errors[0].field).toBe('username');
  });

  it('updateUser: a user may rename itself and keeps working with its token', async () => {
    const t = app();
    const r = await t.put('/v4/account/users/owner', { username: 'boss' });
    expect(r.status).toBe(200);
    const me = await t.get('/v4/profile');
    expect(me.body.username).toBe('boss');
  });

  it('updateUser: the last unrestricted user cannot be made restricted', async () => {
    const t = app();
    const r = await t.put('/v4/account/users/owner', { restricted: true });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('restricted');
    expect((await t.get('/v4/profile')).body.restricted).toBe(false);
    await t.post('/v4/account/users', { username: 'second', email: 's@example.com' });
    expect((await t.put('/v4/account/users/owner', { restricted: true })).status).toBe(200);
  });

  it('updateUser: making a user restricted gives it empty grants', async () => {
    const t = app();
    const u = await createTestUser(t, {
      restricted: false,
      global: { add_computes: true, account_access: 'read_write' },
      grants: [{ type: 'compute', id: 7, permissions: 'read_write' }],
    });
    const r = await t.put(`/v4/account/users/${u.username}`, { restricted: true });
    expect(r.status).toBe(200);
    const g = await t.get(`/v4/account/users/${u.username}/grants`);
    expect(g.status).toBe(200);
    expect(g.body.global.add_computes).toBe(false);
    expect(g.body.global.account_access).toBeNull();
    expect((await t.get('/v4/account', { token: u.token })).status).toBe(403);
    const rows = await t.ctx.db.db
      .selectFrom('entity_grants')
      .select('entity_id')
      .where('user_id', '=', u.userId)
      .execute();
    expect(rows).toEqual([]);
  });

  it('updateUser: making a restricted user unrestricted takes effect at once', async () => {
    const t = app();
    const u = await createTestUser(t);
    expect((await t.get('/v4/account', { token: u.token })).status).toBe(403);
    await t.put(`/v4/account/users/${u.username}`, { restricted: false });
    expect((await t.get('/v4/account', { token: u.token })).status).toBe(200);
    expect((await t.get(`/v4/account/users/${u.username}/grants`)).status).toBe(204);
  });

  it('deleteUser: removes the user with its tokens and records user_delete', async () => {
    const t = app();
    const u = await createTestUser(t);
    expect((await t.get('/v4/profile', { token: u.token })).status).toBe(200);
    const r = await t.del(`/v4/account/users/${u.username}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get('/v4/profile', { token: u.token })).status).toBe(401);
    expect((await t.get(`/v4/account/users/${u.username}`)).status).toBe(404);
    const tokens = await t.ctx.db.db
      .selectFrom('tokens')
      .select('id')
      .where('user_id', '=', u.userId)
      .execute();
    expect(tokens).toEqual([]);
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({
      action: 'user_delete',
      username: 'owner',
      entity: { label: u.username },
    });
  });

  it('deleteUser: the last unrestricted user cannot be deleted', async () => {
    const t = app();
    await createTestUser(t); // restricted users do not count
    const r = await t.del('/v4/account/users/owner');
    expect(r.status).toBe(400);
    expect((await t.get('/v4/profile')).status).toBe(200);
    const other = await createTestUser(t, { restricted: false });
    expect((await t.del('/v4/account/users/owner', { token: other.token })).status).toBe(200);
    const last = await t.del(`/v4/account/users/${other.username}`, { token: other.token });
    expect(last.status).toBe(400);
  });

  it('deleteUser: two unrestricted users deleting each other at once leave one of them', async () => {
    const t = app();
    for (let round = 0; round < 4; round++) {
      const acct = await secondAccount(t, `acct-${round}`);
      const other = await createTestUser(t, { restricted: false, accountId: acct.accountId });
      const results = await Promise.all([
        t.del(`/v4/account/users/${other.username}`, { token: acct.token }),
        t.del(`/v4/account/users/${acct.username}`, { token: other.token }),
      ]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const left = await t.ctx.db.db
        .selectFrom('users')
        .select('username')
        .where('account_id', '=', acct.accountId)
        .where('restricted', '=', 0)
        .execute();
      expect(left).toHaveLength(1);
    }
  });

  it('updateUser: two unrestricted users restricting each other at once leave one unrestricted', async () => {
    const t = app();
    for (let round = 0; round < 4; round++) {
      const acct = await secondAccount(t, `acct-${round}`);
      const other = await createTestUser(t, { restricted: false, accountId: acct.accountId });
      const results = await Promise.all([
        t.put(`/v4/account/users/${other.username}`, { restricted: true }, { token: acct.token }),
        t.put(`/v4/account/users/${acct.username}`, { restricted: true }, { token: other.token }),
      ]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const left = await t.ctx.db.db
        .selectFrom('users')
        .select('username')
        .where('account_id', '=', acct.accountId)
        .where('restricted', '=', 0)
        .execute();
      expect(left).toHaveLength(1);
    }
  });
});
