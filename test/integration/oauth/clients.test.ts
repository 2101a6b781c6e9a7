import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createClient, exchange, givePassword, obtainCode, REDIRECT } from './fixtures.js';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(32, 1),
]);
const GIF = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(16, 0)]);

describe('oauth clients', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const putThumb = (id: string, body: Buffer, type = 'image/png', token?: string) =>
    t.app.inject({
      method: 'PUT',
      url: `/v4/account/oauth-clients/${id}/thumbnail`,
      payload: body,
      headers: {
        'content-type': type,
        ...(token === null ? {} : { authorization: `Bearer ${token ?? t.admin.token}` }),
      },
    });

  it('createClient: shows the secret once, active, public false by default; event oauth_client_create', async () => {
    const c = await createClient(t);
    expect(c.id).toMatch(/^[0-9a-f]{20}$/);
    expect(c.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(c).toMatchObject({
      label: 'Test app',
      redirect_uri: REDIRECT,
      status: 'active',
      public: false,
      thumbnail_url: null,
    });
    const got = await t.get(`/v4/account/oauth-clients/${c.id}`);
    expect(got.body.secret).toBe('<REDACTED>');
    const list = await t.get('/v4/account/oauth-clients');
    expect(list.body.data.map((x: { secret: string }) => x.secret)).toEqual(['<REDACTED>']);
    const stored = await t.ctx.db.db
      .selectFrom('oauth_clients')
      .select('secret_hash')
      .executeTakeFirstOrThrow();
    expect(stored.secret_hash).not.toContain(c.secret);
    const ev = await t.get('/v4/account/events');
    expect(ev.body.data[0]).toMatchObject({
      action: 'oauth_client_create',
      entity: { type: 'oauth_client', label: 'Test app', url: `/v4/account/oauth-clients/${c.id}` },
    });
    expect(Number.isInteger(ev.body.data[0].entity.id)).toBe(true);
  });

  it('createClient: label 1..512 and redirect_uri a URL are required', async () => {
    const missing = await t.post('/v4/account/oauth-clients', {});
    expect(missing.status).toBe(400);
    const fields = missing.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['label', 'redirect_uri']);
    expect(
      (await t.post('/v4/account/oauth-clients', { label: '', redirect_uri: REDIRECT })).status,
    ).toBe(400);
    expect(
      (
        await t.post('/v4/account/oauth-clients', {
          label: 'x'.repeat(513),
          redirect_uri: REDIRECT,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await t.post('/v4/account/oauth-clients', {
          label: 'x'.repeat(512),
          redirect_uri: REDIRECT,
        })
      ).status,
    ).toBe(200);
    const bad = await t.post('/v4/account/oauth-clients', {
      label: 'a',
      redirect_uri: 'not a url',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('redirect_uri');
    const local = await t.post('/v4/account/oauth-clients', {
      label: 'dev',
      redirect_uri: 'http://localhost:9999/cb',
    });
    expect(local.status).toBe(200);
    const js = await t.post('/v4/account/oauth-clients', {
      label: 'a',
      redirect_uri: 'javascript:alert(1)',
    });
    expect(js.status).toBe(400);
    const frag = await t.post('/v4/account/oauth-clients', {
      label: 'a',
      redirect_uri: 'https://a.example/cb#x',
    });
    expect(frag.status).toBe(400);
  });

  it('updateClient: changes label, redirect_uri and public; event oauth_client_update', async () => {
    const c = await createClient(t);
    const r = await t.put(`/v4/account/oauth-clients/${c.id}`, {
      label: 'Renamed',
      public: true,
      redirect_uri: 'https://other.example.com/cb',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'Renamed',
      public: true,
      redirect_uri: 'https://other.example.com/cb',
      secret: '<REDACTED>',
    });
    const ev = await t.get('/v4/account/events');
    expect(ev.body.data[0]).toMatchObject({
      action: 'oauth_client_update',
      entity: { label: 'Renamed' },
    });
  });

  it('getClient: another account’s client is not found', async () => {
    const c = await createClient(t);
    const acct = await t.ctx.db.db
      .insertInto('accounts')
      .values({
        euuid: 'B0000000-0000-0000-0000-000000000000',
        email: 'b@example.com',
        company: '',
        first_name: '',
        last_name: '',
        address_1: '',
        address_2: '',
        city: '',
        state: '',
        zip: '',
        country: '',
        phone: '',
        tax_id: '',
        balance_cents: 0,
        balance_uninvoiced_cents: 0,
        billing_source: 'compute',
        capabilities: '[]',
        active_since: '2026-01-01T00:00:00',
        backups_enabled: 0,
        network_helper: 0,
        managed: 0,
        longview_subscription: null,
        object_storage: 'disabled',
        created: '2026-01-01T00:00:00',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const other = await createTestUser(t, { accountId: acct.id, restricted: false });
    expect((await t.get(`/v4/account/oauth-clients/${c.id}`, { token: other.token })).status).toBe(
      404,
    );
    expect((await t.get('/v4/account/oauth-clients', { token: other.token })).body.results).toBe(0);
    expect((await t.del(`/v4/account/oauth-clients/${c.id}`, { token: other.token })).status).toBe(
      404,
    );
  });

  it('createClient: a restricted user needs account_access read_write; reading needs read_only', async () => {
    const none = await createTestUser(t);
    expect((await t.get('/v4/account/oauth-clients', { token: none.token })).status).toBe(403);
    const ro = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect((await t.get('/v4/account/oauth-clients', { token: ro.token })).status).toBe(200);
    const denied = await t.post(
      '/v4/account/oauth-clients',
      { label: 'a', redirect_uri: REDIRECT },
      { token: ro.token },
    );
    expect(denied.status).toBe(403);
  });

  it('getClients: needs account:read_only; createClient needs account:read_write', async () => {
    const u = await createTestUser(t, { restricted: false, scopes: 'account:read_only' });
    expect((await t.get('/v4/account/oauth-clients', { token: u.token })).status).toBe(200);
    expect(
      (
        await t.post(
          '/v4/account/oauth-clients',
          { label: 'a', redirect_uri: REDIRECT },
          { token: u.token },
        )
      ).status,
    ).toBe(401);
  });

  it('resetClientSecret: a new secret, shown once; the old one fails at once; event oauth_client_secret_reset', async () => {
    await givePassword(t, 'owner');
    const c = await createClient(t);
    const code = await obtainCode(t, c);
    const r = await t.post(`/v4/account/oauth-clients/${c.id}/reset-secret`);
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.secret).not.toBe(c.secret);
    const old = await exchange(t, c, code);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    const fresh = await exchange(t, { ...c, secret: r.body.secret }, code);
    expect(fresh.status).toBe(200);
    const ev = await t.get('/v4/account/events');
    expect(ev.body.data.map((e: { action: string }) => e.action)).toContain(
      'oauth_client_secret_reset',
    );
  });

  it("resetClientSecret: reset_secret (the Python SDK's spelling) resets the secret too", async () => {
    const c = await createClient(t);
    const r = await t.post(`/v4beta/account/oauth-clients/${c.id}/reset_secret`);
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.secret).not.toBe(c.secret);
    expect(r.headers['x-accepted-oauth-scopes']).toBe('account:read_write');
  });

  it('deleteClient: removed, event oauth_client_delete, then 404', async () => {
    const c = await createClient(t);
    expect((await t.del(`/v4/account/oauth-clients/${c.id}`)).body).toEqual({});
    expect((await t.get(`/v4/account/oauth-clients/${c.id}`)).status).toBe(404);
    const ev = await t.get('/v4/account/events');
    expect(ev.body.data[0]).toMatchObject({
      action: 'oauth_client_delete',
      entity: { type: 'oauth_client' },
    });
  });

  it('setClientThumbnail: a PNG is stored and served without a token with its type', async () => {
    const c = await createClient(t);
    const r = await putThumb(c.id, PNG);
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body)).toEqual({});
    const got = await t.app.inject({
      method: 'GET',
      url: `/v4/account/oauth-clients/${c.id}/thumbnail`,
    });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.rawPayload.equals(PNG)).toBe(true);
    const view = await t.get(`/v4/account/oauth-clients/${c.id}`);
    expect(view.body.thumbnail_url).toBe(`/v4/account/oauth-clients/${c.id}/thumbnail`);
  });

  it('setClientThumbnail: the type served is the one of the bytes, not the declared one', async () => {
    const c = await createClient(t);
    expect((await putThumb(c.id, GIF, 'image/png')).statusCode).toBe(200);
    const got = await t.app.inject({
      method: 'GET',
      url: `/v4/account/oauth-clients/${c.id}/thumbnail`,
    });
    expect(got.headers['content-type']).toBe('image/gif');
  });

  it('setClientThumbnail: refuses bytes that are not an image, an empty body and a non-image type', async () => {
    const c = await createClient(t);
    const html = await putThumb(c.id, Buffer.from('<html>hello</html>'));
    expect(html.statusCode).toBe(400);
    expect(JSON.parse(html.body).errors[0].field).toBe('thumbnail');
    expect((await putThumb(c.id, Buffer.alloc(0))).statusCode).toBe(400);
    expect((await putThumb(c.id, PNG, 'text/plain')).statusCode).toBe(415);
  });

  it('setClientThumbnail: over 128 KiB is refused', async () => {
    const c = await createClient(t);
    const big = Buffer.concat([PNG, Buffer.alloc(128 * 1024)]);
    expect((await putThumb(c.id, big)).statusCode).toBe(413);
  });

  it('setClientThumbnail: needs a token; getClientThumbnail of a client without one is 404', async () => {
    const c = await createClient(t);
    expect((await putThumb(c.id, PNG, 'image/png', null as unknown as string)).statusCode).toBe(
      401,
    );
    const got = await t.app.inject({
      method: 'GET',
      url: `/v4/account/oauth-clients/${c.id}/thumbnail`,
    });
    expect(got.statusCode).toBe(404);
  });

  it('getClients: filters on label and public', async () => {
    await createClient(t, { label: 'alpha' });
    await createClient(t, { label: 'beta', public: true });
    const pub = await t.get('/v4/account/oauth-clients', { filter: { public: true } });
    expect(pub.body.data.map((c: { label: string }) => c.label)).toEqual(['beta']);
    const lab = await t.get('/v4/account/oauth-clients', { filter: { label: 'alpha' } });
    expect(lab.body.results).toBe(1);
  });

  it('getClient: the integer key of event references finds the same client, in its account only', async () => {
    const c = await createClient(t);
    const key = (await t.get('/v4/account/events')).body.data[0].entity.id;
    const byKey = await t.get(`/v4/account/oauth-clients/${key}`);
    expect(byKey.status).toBe(200);
    expect(byKey.body.id).toBe(c.id);
    expect(t.ctx.entities.get('oauth_client')?.url(key)).toBe(`/v4/account/oauth-clients/${key}`);
    expect((await t.get(`/v4/account/oauth-clients/${key + 1}`)).status).toBe(404);
    expect((await t.get('/v4/account/oauth-clients/01')).status).toBe(404);
  });
});
