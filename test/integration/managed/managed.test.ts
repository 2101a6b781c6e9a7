import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from '../controls/helpers.js';
import { createTransfer, instance } from '../transfers/fixtures.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field ?? null).sort();

async function enableManaged(t: TestApp, token?: string) {
  const r = await t.post('/v4/account/settings/managed-enable', undefined, token ? { token } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

describe('managed: the account, contacts, credentials, settings and stats', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('enableAccountManaged: turns Managed on (settings, event managed_enabled) once', async () => {
    const before = await t.get('/v4/managed/contacts');
    expect(before.status).toBe(400);
    expect(before.body.errors[0].reason).toBe('Managed is not enabled on this account.');
    const r = await t.post('/v4/account/settings/managed-enable');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get('/v4/account/settings')).body.managed).toBe(true);
    const ev = await t.get('/v4/account/events', { filter: { action: 'managed_enabled' } });
    expect(ev.body.data[0]).toMatchObject({ entity: { type: 'account' }, username: 'owner' });
    const again = await t.post('/v4/account/settings/managed-enable');
    expect(again.status).toBe(400);
    expect((await t.get('/v4/managed/contacts')).body.results).toBe(0);
  });

  it('enableAccountManaged: needs account_access read_write; /managed is for unrestricted users only', async () => {
    const ro = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect(
      (await t.post('/v4/account/settings/managed-enable', undefined, { token: ro.token })).status,
    ).toBe(403);
    const rw = await createTestUser(t, { global: { account_access: 'read_write' } });
    await enableManaged(t, rw.token);
    expect((await t.get('/v4/managed/services', { token: rw.token })).status).toBe(403);
  });

  it('managed disable (emulator control): event managed_disabled; /managed answers 400 again', async () => {
    await enableManaged(t);
    const euuid = (await t.get('/v4/account')).body.euuid;
    const o = op(t, await operatorToken(t));
    expect((await o.post('/_stratus/managed/disable', { euuid })).status).toBe(200);
    expect((await t.get('/v4/account/settings')).body.managed).toBe(false);
    const ev = await t.get('/v4/account/events', { filter: { action: 'managed_disabled' } });
    expect(ev.body.results).toBe(1);
    expect((await t.get('/v4/managed/services')).status).toBe(400);
  });

  it('managed contacts: create, view, update, filter on group, delete; fields checked', async () => {
    await enableManaged(t);
    const c = await t.post('/v4/managed/contacts', {
      name: 'Jane Doe',
      email: 'jane@example.com',
      phone: { primary: '+1 215-555-1212', secondary: null },
      group: 'on-call',
    });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({
      name: 'Jane Doe',
      email: 'jane@example.com',
      phone: { primary: '+1 215-555-1212', secondary: null },
      group: 'on-call',
      updated: '2026-03-01T12:00:00',
    });
    await t.post('/v4/managed/contacts', { name: 'Bob', email: 'bob@example.com' });
    const oncall = await t.get('/v4/managed/contacts', { filter: { group: 'on-call' } });
    expect(oncall.body.data.map((x: { name: string }) => x.name)).toEqual(['Jane Doe']);
    const u = await t.put(`/v4/managed/contacts/${c.body.id}`, {
      group: null,
      phone: { secondary: '555' },
    });
    expect(u.body).toMatchObject({
      group: null,
      phone: { primary: '+1 215-555-1212', secondary: '555' },
    });
    const bad = await t.post('/v4/managed/contacts', {
      name: 'x',
      email: 'not-an-email',
      group: 'a',
    });
    expect(fieldsOf(bad)).toEqual(['email', 'group', 'name']);
    const missing = await t.post('/v4/managed/contacts', {});
    expect(fieldsOf(missing)).toEqual(['email', 'name']);
    expect((await t.del(`/v4/managed/contacts/${c.body.id}`)).status).toBe(200);
    expect((await t.get(`/v4/managed/contacts/${c.body.id}`)).status).toBe(404);
  });

  it('managed credentials: stored sealed, shown as id and label only; support opening one sets last_decrypted', async () => {
    await enableManaged(t);
    const c = await t.post('/v4/managed/credentials', {
      label: 'prod-db',
      username: 'admin',
      password: 'correct horse battery staple',
    });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({ id: c.body.id, label: 'prod-db', last_decrypted: null });
    const row = await t.ctx.db.db
      .selectFrom('managed_credentials')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('correct horse');
    expect(row.password_sealed).toMatch(/^v1:/);
    const dup = await t.post('/v4/managed/credentials', { label: 'prod-db', password: 'x' });
    expect(dup.body.errors).toEqual([{ field: 'label', reason: 'Label must be unique.' }]);
    expect(fieldsOf(await t.post('/v4/managed/credentials', { label: 'x' }))).toEqual(['password']);

    expect(
      (await t.put(`/v4/managed/credentials/${c.body.id}`, { label: 'prod-db-2' })).body.label,
    ).toBe('prod-db-2');
    expect(
      (await t.post(`/v4/managed/credentials/${c.body.id}/update`, { password: 'new secret' }))
        .status,
    ).toBe(200);
    const o = op(t, await operatorToken(t));
    t.clock.advance(60_000);
    const revealed = await o.post(`/_stratus/managed/credentials/${c.body.id}/reveal`);
    expect(revealed.status, revealed.text).toBe(200);
    expect(revealed.body).toMatchObject({ username: null, password: 'new secret' });
    expect((await t.get(`/v4/managed/credentials/${c.body.id}`)).body.last_decrypted).toBe(
      '2026-03-01T12:01:00',
    );
    expect((await t.post(`/v4/managed/credentials/${c.body.id}/revoke`)).status).toBe(200);
    expect((await t.get('/v4/managed/credentials')).body.results).toBe(0);
  });

  it('viewManagedSSHKey: the account has one ed25519 public key, kept across disable and enable', async () => {
    await enableManaged(t);
    const k = await t.get('/v4/managed/credentials/sshkey');
    expect(k.status).toBe(200);
    expect(k.body.ssh_key).toMatch(
      /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/=]+ managed-/,
    );
    const euuid = (await t.get('/v4/account')).body.euuid;
    await op(t, await operatorToken(t)).post('/_stratus/managed/disable', { euuid });
    await enableManaged(t);
    expect((await t.get('/v4/managed/credentials/sshkey')).body.ssh_key).toBe(k.body.ssh_key);
  });

  it('managed compute settings: every instance with the defaults; SSH settings checked against its addresses', async () => {
    await enableManaged(t);
    const inst = await instance(t);
    const list = await t.get('/v4/managed/compute-settings');
    expect(list.body.data).toEqual([
      {
        id: inst.id,
        label: inst.label,
        group: '',
        ssh: { access: true, user: null, ip: 'any', port: null },
      },
    ]);
    const ips = (await t.get(`/v4/compute/instances/${inst.id}/ips`)).body;
    const addr = ips.ipv4.public[0].address as string;
    const r = await t.put(`/v4/managed/compute-settings/${inst.id}`, {
      ssh: { access: false, user: 'ops', ip: addr, port: 2222 },
    });
    expect(r.status).toBe(200);
    expect(r.body.ssh).toEqual({ access: false, user: 'ops', ip: addr, port: 2222 });
    const partial = await t.put(`/v4/managed/compute-settings/${inst.id}`, { ssh: { port: null } });
    expect(partial.body.ssh).toEqual({ access: false, user: 'ops', ip: addr, port: null });
    const bad = await t.put(`/v4/managed/compute-settings/${inst.id}`, {
      ssh: { ip: '203.0.113.99', port: 70000, user: 'u'.repeat(33) },
    });
    expect(fieldsOf(bad)).toEqual(['ssh.ip', 'ssh.port', 'ssh.user']);
    expect((await t.get('/v4/managed/compute-settings/999999')).status).toBe(404);
  });

  it('getManagedStats: a message until instances ran; then 24 hours of 5-minute points for the account', async () => {
    await enableManaged(t);
    expect((await t.get('/v4/managed/stats')).body).toEqual({
      data: ['Graphs are not yet available.'],
    });
    await instance(t);
    await instance(t);
    t.clock.advance(2 * 3600_000);
    const r = await t.get('/v4/managed/stats');
    expect(r.status).toBe(200);
    const d = r.body.data;
    for (const k of ['cpu', 'disk', 'swap', 'net_in', 'net_out']) {
      expect(d[k].length).toBeGreaterThan(20);
      expect(d[k][0]).toEqual({ x: expect.any(Number), y: expect.any(Number) });
    }
    expect(d.cpu.some((p: { y: number }) => p.y > 0)).toBe(true);
  });

  it('createServiceTransfer: an instance of a Managed account is not transferred', async () => {
    const inst = await instance(t);
    await enableManaged(t);
    const r = await createTransfer(t, [inst.id]);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('Managed');
  });

  it('managed state: a reset of the account turns Managed off and removes its rows', async () => {
    await enableManaged(t);
    await t.post('/v4/managed/contacts', { name: 'Bob', email: 'bob@example.com' });
    const euuid = (await t.get('/v4/account')).body.euuid;
    expect((await op(t, await operatorToken(t)).post('/_stratus/reset', { euuid })).status).toBe(
      200,
    );
    expect((await t.get('/v4/account/settings')).body.managed).toBe(false);
    expect(await t.ctx.db.db.selectFrom('managed_contacts').selectAll().execute()).toEqual([]);
  });
});
