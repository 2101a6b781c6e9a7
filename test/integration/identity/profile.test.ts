import { describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { secondAccount, sshKey, useTestApp } from './fixtures.js';

describe('profile', () => {
  const app = useTestApp();

  it('updateProfile: changes the writable fields and records profile_update', async () => {
    const t = app();
    const key = sshKey('ed25519');
    const r = await t.put('/v4/profile', {
      email: 'me@example.net',
      timezone: 'Europe/Berlin',
      email_notifications: false,
      lish_auth_method: 'keys_only',
      authorized_keys: [key],
      two_factor_auth: false,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      email: 'me@example.net',
      timezone: 'Europe/Berlin',
      email_notifications: false,
      lish_auth_method: 'keys_only',
      authorized_keys: [key],
      two_factor_auth: false,
    });
    expect((await t.get('/v4/profile')).body.timezone).toBe('Europe/Berlin');
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({ action: 'profile_update', username: 'owner' });
    expect((await t.put('/v4/profile', { authorized_keys: null })).body.authorized_keys).toBeNull();
  });

  it('updateProfile: username, uid and restricted are read-only here', async () => {
    const t = app();
    const u = await createTestUser(t);
    const r = await t.put(
      '/v4/profile',
      { restricted: false, username: 'hacker', uid: 1 },
      { token: u.token },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ restricted: true, username: u.username, uid: u.userId });
    expect((await t.get('/v4/account', { token: u.token })).status).toBe(403);
  });

  it('updateProfile: every failing field is named at once', async () => {
    const t = app();
    const r = await t.put('/v4/profile', {
      email: 'nope',
      timezone: 'Mars/Olympus',
      lish_auth_method: 'telnet',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toEqual(['lish_auth_method']);
    const sem = await t.put('/v4/profile', {
      email: 'nope',
      timezone: 'Mars/Olympus',
      authorized_keys: [sshKey('ed25519'), 'ssh-rsa AAAA'],
    });
    expect(sem.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'authorized_keys.1',
      'email',
      'timezone',
    ]);
  });

  it('updateProfile: needs account:read_write; getProfile works with any token', async () => {
    const t = app();
    const u = await createTestUser(t, { restricted: false, scopes: 'events:read_only' });
    expect((await t.get('/v4/profile', { token: u.token })).status).toBe(200);
    expect((await t.put('/v4/profile', { timezone: 'UTC' }, { token: u.token })).status).toBe(401);
  });

  it("getEvents: a restricted user sees its own profile events, not other users' or the account's", async () => {
    const t = app();
    const u = await createTestUser(t);
    await t.put('/v4/account', { city: 'Paris' });
    await t.post('/v4/profile/tokens', { label: 'owner-token' });
    await t.post('/v4/profile/tokens', { label: 'user-token' }, { token: u.token });
    await t.post(
      '/v4/profile/sshkeys',
      { label: 'k', ssh_key: sshKey('ed25519') },
      { token: u.token },
    );
    const r = await t.get('/v4/account/events', { token: u.token });
    expect(r.body.data.map((e: { action: string }) => e.action)).toEqual([
      'user_ssh_key_add',
      'token_create',
    ]);
    expect(r.body.data[1].entity.label).toBe('user-token');
    // With account access, account events become visible too.
    const reader = await createTestUser(t, { global: { account_access: 'read_only' } });
    const seen = await t.get('/v4/account/events', { token: reader.token });
    expect(seen.body.data.map((e: { action: string }) => e.action)).toContain('account_update');
    expect(seen.body.data.map((e: { action: string }) => e.action)).not.toContain(
      'user_ssh_key_add',
    );
  });

  it("getEvents: two accounts never see each other's events", async () => {
    const t = app();
    const other = await secondAccount(t);
    await t.post('/v4/profile/tokens', { label: 'mine' });
    await t.post('/v4/account/users', { username: 'newcomer', email: 'n@example.com' });
    const theirs = await t.get('/v4/account/events', { token: other.token });
    expect(theirs.body.results).toBe(0);
    await t.post('/v4/profile/tokens', { label: 'theirs' }, { token: other.token });
    const mine = await t.get('/v4/account/events');
    expect(mine.body.data.map((e: { entity: { label: string } }) => e.entity.label)).not.toContain(
      'theirs',
    );
  });
});
