import { describe, expect, it } from 'vitest';
import { sshKeysOfUsers, validatePublicKey } from '../../../src/modules/profile/ssh-keys.js';
import { createTestUser } from '../../helpers/auth.js';
import { mismatchedKey, secondAccount, sshKey, useTestApp } from './fixtures.js';

describe('SSH keys', () => {
  const app = useTestApp();

  it('addSSHKey: stores a parsed key of every accepted type and records user_ssh_key_add', async () => {
    const t = app();
    const types = ['ed25519', 'rsa', 'ecdsa256', 'ecdsa384', 'sk-ed25519', 'sk-ecdsa'] as const;
    for (const type of types) {
      const key = sshKey(type);
      const r = await t.post('/v4/profile/sshkeys', { label: type, ssh_key: key });
      expect(r.status, type).toBe(200);
      expect(r.body).toMatchObject({ label: type, ssh_key: key, created: '2026-03-01T12:00:00' });
    }
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({
      action: 'user_ssh_key_add',
      username: 'owner',
      entity: { type: 'user_ssh_key', label: 'sk-ecdsa' },
    });
    expect((await t.get('/v4/profile/sshkeys')).body.results).toBe(types.length);
  });

  it('addSSHKey: the key is normalised to "<type> <base64> [comment]"', async () => {
    const t = app();
    const [type, b64] = sshKey('ed25519').split(' ');
    const r = await t.post('/v4/profile/sshkeys', { ssh_key: `  ${type}   ${b64}   a b c  ` });
    expect(r.body.ssh_key).toBe(`${type} ${b64} a b c`);
    expect(r.body.label).toBe('');
  });

  it('addSSHKey: refuses keys that do not parse, naming ssh_key', async () => {
    const t = app();
    const [, b64] = sshKey('ed25519').split(' ');
    const bad = [
      'not a key',
      `ssh-ed25519`,
      `ssh-foo ${b64}`,
      `ssh-ed25519 ${b64}!!`,
      `ssh-ed25519 ${b64?.slice(0, -4)}`,
      mismatchedKey(),
      `${sshKey('ed25519')}\nssh-ed25519 ${b64}`,
    ];
    for (const ssh_key of bad) {
      const r = await t.post('/v4/profile/sshkeys', { label: 'x', ssh_key });
      expect(r.status, ssh_key).toBe(400);
      expect(r.body.errors[0].field).toBe('ssh_key');
    }
    const missing = await t.post('/v4/profile/sshkeys', { label: 'x' });
    expect(missing.body.errors[0].field).toBe('ssh_key');
  });

  it('addSSHKey: the label is 0 to 64 characters; both fields are checked at once', async () => {
    const t = app();
    const r = await t.post('/v4/profile/sshkeys', { label: 'x'.repeat(65), ssh_key: 'nope' });
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'label',
      'ssh_key',
    ]);
    const ok = await t.post('/v4/profile/sshkeys', {
      label: 'x'.repeat(64),
      ssh_key: sshKey('ed25519'),
    });
    expect(ok.status).toBe(200);
  });

  it('updateSSHKey: changes the label only; records user_ssh_key_update', async () => {
    const t = app();
    const key = sshKey('ed25519');
    const c = await t.post('/v4/profile/sshkeys', { label: 'old', ssh_key: key });
    const r = await t.put(`/v4/profile/sshkeys/${c.body.id}`, {
      label: 'new',
      ssh_key: sshKey('rsa'),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ label: 'new', ssh_key: key });
    expect((await t.get(`/v4/profile/sshkeys/${c.body.id}`)).body.label).toBe('new');
    const long = await t.put(`/v4/profile/sshkeys/${c.body.id}`, { label: 'x'.repeat(65) });
    expect(long.body.errors[0].field).toBe('label');
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({ action: 'user_ssh_key_update', entity: { label: 'new' } });
  });

  it('deleteSSHKey: removes the key and records user_ssh_key_delete', async () => {
    const t = app();
    const c = await t.post('/v4/profile/sshkeys', { label: 'gone', ssh_key: sshKey('ed25519') });
    expect((await t.del(`/v4/profile/sshkeys/${c.body.id}`)).body).toEqual({});
    expect((await t.get(`/v4/profile/sshkeys/${c.body.id}`)).status).toBe(404);
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({ action: 'user_ssh_key_delete', entity: { label: 'gone' } });
  });

  it('getSSHKeys: a user sees only its own keys; another account sees none of them', async () => {
    const t = app();
    const u = await createTestUser(t);
    const mine = await t.post('/v4/profile/sshkeys', {
      label: 'owner-key',
      ssh_key: sshKey('ed25519'),
    });
    await t.post(
      '/v4/profile/sshkeys',
      { label: 'user-key', ssh_key: sshKey('ed25519') },
      { token: u.token },
    );
    const theirs = await t.get('/v4/profile/sshkeys', { token: u.token });
    expect(theirs.body.data.map((k: { label: string }) => k.label)).toEqual(['user-key']);
    const id = mine.body.id;
    expect((await t.get(`/v4/profile/sshkeys/${id}`, { token: u.token })).status).toBe(404);
    expect(
      (await t.put(`/v4/profile/sshkeys/${id}`, { label: 'x' }, { token: u.token })).status,
    ).toBe(404);
    expect((await t.del(`/v4/profile/sshkeys/${id}`, { token: u.token })).status).toBe(404);
    const other = await secondAccount(t);
    expect((await t.get('/v4/profile/sshkeys', { token: other.token })).body.results).toBe(0);
    expect((await t.get(`/v4/profile/sshkeys/${id}`, { token: other.token })).status).toBe(404);
    expect((await t.get('/v4/profile/sshkeys')).body.results).toBe(1);
  });

  it('getSSHKeys: SSHKey has no filterable fields', async () => {
    const t = app();
    const r = await t.get('/v4/profile/sshkeys', { filter: { label: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toEqual({ reason: 'Cannot filter on label', field: 'X-Filter' });
  });

  it('sshKeysOfUsers: answers the keys of the named users of one account, and problems for the rest', async () => {
    const t = app();
    const u = await createTestUser(t);
    const other = await secondAccount(t);
    const k1 = sshKey('ed25519');
    const k2 = sshKey('rsa');
    await t.post('/v4/profile/sshkeys', { label: 'a', ssh_key: k1 });
    await t.post('/v4/profile/sshkeys', { label: 'b', ssh_key: k2 }, { token: u.token });
    await t.post(
      '/v4/profile/sshkeys',
      { label: 'c', ssh_key: sshKey('ed25519') },
      { token: other.token },
    );
    const r = await sshKeysOfUsers(t.ctx.db, t.admin.accountId, [
      'owner',
      u.username,
      'other-owner',
      'ghost',
    ]);
    expect(r.keys.sort()).toEqual([k1, k2].sort());
    expect(r.problems).toEqual([
      { field: 'authorized_users.2', reason: 'User other-owner not found' },
      { field: 'authorized_users.3', reason: 'User ghost not found' },
    ]);
    expect(await sshKeysOfUsers(t.ctx.db, t.admin.accountId, [])).toEqual({
      keys: [],
      problems: [],
    });
  });

  it('validatePublicKey: accepts the listed types and names the problem otherwise', () => {
    expect(validatePublicKey(sshKey('ecdsa256'))).toBeUndefined();
    expect(validatePublicKey(mismatchedKey())).toMatch(/does not match/);
    expect(validatePublicKey('ssh-foo AAAA')).toMatch(/type must be one of/);
  });
});
