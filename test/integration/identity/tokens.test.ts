import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { hashSecret } from '../../../src/lib/secrets.js';
import { createTestUser } from '../../helpers/auth.js';
import { secondAccount, useTestApp } from './fixtures.js';

describe('personal access tokens', () => {
  const app = useTestApp();

  it('createPersonalAccessToken: answers the full token once; later reads show 16 characters', async () => {
    const t = app();
    const r = await t.post('/v4/profile/tokens', { label: 'ci', scopes: 'computes:read_write' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'ci',
      scopes: 'computes:read_write',
      created: '2026-03-01T12:00:00',
      expiry: null,
    });
    expect(r.body.token).toMatch(/^[0-9a-f]{64}$/);
    const viewed = await t.get(`/v4/profile/tokens/${r.body.id}`);
    expect(viewed.body.token).toBe(r.body.token.slice(0, 16));
    const listed = await t.get('/v4/profile/tokens');
    expect(listed.body.data.find((x: { id: number }) => x.id === r.body.id).token).toBe(
      r.body.token.slice(0, 16),
    );
    expect(listed.text).not.toContain(r.body.token);
    // The new token works, with its scopes.
    expect((await t.get('/v4/profile', { token: r.body.token })).status).toBe(200);
    expect((await t.get('/v4/account', { token: r.body.token })).status).toBe(401);
  });

  it('createPersonalAccessToken: records token_create with the acting username', async () => {
    const t = app();
    const r = await t.post('/v4/profile/tokens', { label: 'deploy' });
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({
      action: 'token_create',
      username: 'owner',
      entity: { type: 'token', id: r.body.id, label: 'deploy' },
    });
  });

  it('createPersonalAccessToken: omitted scopes mean the scopes of the acting token', async () => {
    const t = app();
    const u = await createTestUser(t, { scopes: 'account:read_write events:read_only' });
    const a = await t.post('/v4/profile/tokens', { label: 'a' }, { token: u.token });
    expect(a.body.scopes).toBe('account:read_write events:read_only');
    expect((await t.post('/v4/profile/tokens', { label: 'c' })).body.scopes).toBe('*');
    expect((await t.post('/v4/profile/tokens', { label: 'd', scopes: '*' })).body.scopes).toBe('*');
  });

  it('createPersonalAccessToken: * from a limited token is a 400 naming scopes, and no token is created', async () => {
    const t = app();
    const u = await createTestUser(t, { scopes: 'account:read_write' });
    const before = (await t.get('/v4/profile/tokens', { token: u.token })).body.results;
    const r = await t.post('/v4/profile/tokens', { label: 'b', scopes: '*' }, { token: u.token });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: 'scopes', reason: 'A token cannot have more scopes than the token that creates it' },
    ]);
    expect((await t.get('/v4/profile/tokens', { token: u.token })).body.results).toBe(before);
    const events = await t.get('/v4/account/events', { filter: { action: 'token_create' } });
    expect(
      events.body.data.filter((e: { entity: { label: string } }) => e.entity.label === 'b'),
    ).toEqual([]);
    // A subset is fine: read_write covers read_only.
    const sub = await t.post(
      '/v4/profile/tokens',
      { label: 'c', scopes: 'account:read_only' },
      { token: u.token },
    );
    expect(sub.status).toBe(200);
    expect(sub.body.scopes).toBe('account:read_only');
  });

  it('createPersonalAccessToken: an invalid scope list is a 400 naming the bad scope', async () => {
    const t = app();
    const r = await t.post('/v4/profile/tokens', {
      label: 'x',
      scopes: 'events:read_only computes:read_all',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      {
        field: 'scopes',
        reason:
          'scopes must be "*" or a list such as "computes:read_write events:read_only": ' +
          '"computes:read_all": unknown level "read_all" (read_only or read_write)',
      },
    ]);
  });

  it('createPersonalAccessToken: a new token cannot have more scopes than the acting token', async () => {
    const t = app();
    const u = await createTestUser(t, { scopes: 'account:read_write computes:read_only' });
    for (const scopes of [
      'computes:read_write',
      'volumes:read_only',
      'account:read_write events:read_only',
    ]) {
      const r = await t.post('/v4/profile/tokens', { label: 'x', scopes }, { token: u.token });
      expect(r.status, scopes).toBe(400);
      expect(r.body.errors[0].field).toBe('scopes');
    }
    const ok = await t.post(
      '/v4/profile/tokens',
      { label: 'x', scopes: 'computes:read_only account:read_only' },
      { token: u.token },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.scopes).toBe('account:read_only computes:read_only');
  });

  it('createPersonalAccessToken: scopes, expiry and label limits are all reported at once', async () => {
    const t = app();
    const r = await t.post('/v4/profile/tokens', {
      label: 'x'.repeat(101),
      scopes: 'computes:write',
      expiry: 'tomorrow',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'expiry',
      'label',
      'scopes',
    ]);
    expect((await t.post('/v4/profile/tokens', { label: '' })).body.errors[0].field).toBe('label');
    expect((await t.post('/v4/profile/tokens', { label: 'x'.repeat(100) })).status).toBe(200);
  });

  it('createPersonalAccessToken: the expiry must be in the future and is honoured', async () => {
    const t = app();
    const past = await t.post('/v4/profile/tokens', { label: 'x', expiry: '2026-03-01T11:59:59' });
    expect(past.status).toBe(400);
    expect(past.body.errors[0].field).toBe('expiry');
    const r = await t.post('/v4/profile/tokens', { label: 'x', expiry: '2026-03-01T13:00:00Z' });
    expect(r.body.expiry).toBe('2026-03-01T13:00:00');
    expect((await t.get('/v4/profile', { token: r.body.token })).status).toBe(200);
    t.clock.advance(60 * 60 * 1000);
    const expired = await t.get('/v4/profile', { token: r.body.token });
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0].reason).toBe('Invalid Token');
    const never = await t.post('/v4/profile/tokens', { label: 'y', expiry: null });
    expect(never.body.expiry).toBeNull();
  });

  it('updatePersonalAccessToken: changes the label only; records token_update', async () => {
    const t = app();
    const c = await t.post('/v4/profile/tokens', { label: 'old', scopes: 'events:read_only' });
    const r = await t.put(`/v4/profile/tokens/${c.body.id}`, {
      label: 'new',
      scopes: '*',
      expiry: '2030-01-01T00:00:00',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ label: 'new', scopes: 'events:read_only', expiry: null });
    expect(r.body.token).toBe(c.body.token.slice(0, 16));
    const bad = await t.put(`/v4/profile/tokens/${c.body.id}`, { label: '' });
    expect(bad.body.errors[0].field).toBe('label');
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({ action: 'token_update', entity: { label: 'new' } });
  });

  it('deletePersonalAccessToken: the token is refused at once; a token may revoke itself', async () => {
    const t = app();
    const c = await t.post('/v4/profile/tokens', { label: 'temp' });
    expect((await t.del(`/v4/profile/tokens/${c.body.id}`)).body).toEqual({});
    expect((await t.get('/v4/profile', { token: c.body.token })).status).toBe(401);
    expect((await t.get(`/v4/profile/tokens/${c.body.id}`)).status).toBe(404);
    const self = await t.post('/v4/profile/tokens', { label: 'self' });
    const me = await t.del(`/v4/profile/tokens/${self.body.id}`, { token: self.body.token });
    expect(me.status).toBe(200);
    expect((await t.get('/v4/profile', { token: self.body.token })).status).toBe(401);
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({ action: 'token_delete', entity: { label: 'self' } });
  });

  it('getPersonalAccessTokens: a user sees only its own tokens; others are not found', async () => {
    const t = app();
    const u = await createTestUser(t);
    const mine = await t.post('/v4/profile/tokens', { label: 'owners' });
    const list = await t.get('/v4/profile/tokens', { token: u.token });
    expect(list.body.data.map((x: { label: string }) => x.label)).toEqual(['test']);
    expect((await t.get(`/v4/profile/tokens/${mine.body.id}`, { token: u.token })).status).toBe(
      404,
    );
    expect(
      (await t.put(`/v4/profile/tokens/${mine.body.id}`, { label: 'x' }, { token: u.token }))
        .status,
    ).toBe(404);
    expect((await t.del(`/v4/profile/tokens/${mine.body.id}`, { token: u.token })).status).toBe(
      404,
    );
    const other = await secondAccount(t);
    expect((await t.del(`/v4/profile/tokens/${mine.body.id}`, { token: other.token })).status).toBe(
      404,
    );
    expect((await t.get('/v4/profile', { token: mine.body.token })).status).toBe(200);
  });

  it('getPersonalAccessTokens: filters by label and created', async () => {
    const t = app();
    await t.post('/v4/profile/tokens', { label: 'alpha' });
    t.clock.advance(60_000);
    await t.post('/v4/profile/tokens', { label: 'beta' });
    const byLabel = await t.get('/v4/profile/tokens', { filter: { label: 'beta' } });
    expect(byLabel.body.data.map((x: { label: string }) => x.label)).toEqual(['beta']);
    const byCreated = await t.get('/v4/profile/tokens', {
      filter: { created: { '+gt': '2026-03-01T12:00:30' } },
    });
    expect(byCreated.body.data.map((x: { label: string }) => x.label)).toEqual(['beta']);
    const bad = await t.get('/v4/profile/tokens', { filter: { scopes: '*' } });
    expect(bad.status).toBe(400);
  });

  it('getPersonalAccessTokens: needs account:read_only; creating needs account:read_write', async () => {
    const t = app();
    const u = await createTestUser(t, { restricted: false, scopes: 'account:read_only' });
    expect((await t.get('/v4/profile/tokens', { token: u.token })).status).toBe(200);
    expect((await t.post('/v4/profile/tokens', { label: 'x' }, { token: u.token })).status).toBe(
      401,
    );
  });

  it('createPersonalAccessToken: tokens are stored only as hashes', async () => {
    const t = app();
    const r = await t.post('/v4/profile/tokens', { label: 'hashed' });
    const row = await t.ctx.db.db
      .selectFrom('tokens')
      .selectAll()
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashSecret(r.body.token));
    expect(Object.values(row)).not.toContain(r.body.token);
  });

  it('createPersonalAccessToken: the token never appears in the logs, even at trace level', async () => {
    const t = app();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    // The same context, served by an app that logs everything.
    const logged = await buildApp({ ...t.ctx, log: pino({ level: 'trace' }, sink) });
    try {
      const res = await logged.inject({
        method: 'POST',
        url: '/v4/profile/tokens',
        headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ label: 'secret' }),
      });
      const token = JSON.parse(res.body).token as string;
      await logged.inject({
        method: 'GET',
        url: '/v4/nope',
        headers: { authorization: `Bearer ${token}` },
      });
      await logged.inject({
        method: 'GET',
        url: '/v4/profile',
        headers: { authorization: `Bearer ${token}` },
      });
      const text = lines.join('');
      expect(text).toContain('createPersonalAccessToken');
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.slice(0, 16));
      expect(text).not.toContain(t.admin.token);
    } finally {
      await logged.close();
    }
  });
});
