import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  authorizeQuery,
  createClient,
  exchange,
  form,
  givePassword,
  obtainCode,
  pkce,
  REDIRECT,
  refresh,
  signIn,
  ticketOf,
} from './fixtures.js';

describe('oauth login service', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await givePassword(t, 'owner');
  });
  afterEach(async () => {
    await t.close();
  });

  const authorize = (q: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(q)}` });
  const profile = (token: string) => t.get('/v4/profile', { token });

  it('authorize → sign in → consent → code → token → API → refresh → reuse refused → client delete kills the token', async () => {
    const c = await createClient(t);
    const q = authorizeQuery(c, {
      scopes: 'account:read_only,events:read_only',
      redirect_uri: REDIRECT,
    });
    const page = await authorize(q);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('name="password"');
    expect(page.body).toContain('Test app');

    const consent = await signIn(t, q);
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('account:read_only');
    expect(consent.body).toContain('events:read_only');
    const back = await form(t, '/oauth/consent', {
      ticket: ticketOf(consent.body),
      decision: 'approve',
    });
    expect(back.statusCode).toBe(302);
    const to = new URL(String(back.headers.location));
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('state')).toBe('st-1');
    const code = to.searchParams.get('code') ?? '';

    const tok = await exchange(t, c, code, { redirect_uri: REDIRECT });
    expect(tok.status).toBe(200);
    expect(tok.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 7200,
      scopes: 'account:read_only events:read_only',
    });
    expect(tok.body.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(tok.body.refresh_token).toMatch(/^[0-9a-f]{64}$/);

    const me = await profile(tok.body.access_token);
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('owner');
    expect(me.headers['x-oauth-scopes']).toBe('account:read_only events:read_only');
    // Same scope enforcement as personal access tokens.
    expect((await t.get('/v4/volumes', { token: tok.body.access_token })).status).toBe(401);
    expect((await t.get('/v4/account/events', { token: tok.body.access_token })).status).toBe(200);
    // Not a personal access token: not listed there.
    expect((await t.get('/v4/profile/tokens')).body.data.length).toBe(1);

    const r1 = await refresh(t, c, tok.body.refresh_token);
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(tok.body.refresh_token);
    expect((await profile(r1.body.access_token)).status).toBe(200);

    const reuse = await refresh(t, c, tok.body.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // Reuse revokes the whole family: the rotated tokens stop working too.
    expect((await profile(r1.body.access_token)).status).toBe(401);
    expect((await refresh(t, c, r1.body.refresh_token)).status).toBe(400);

    const again = await exchange(t, c, await obtainCode(t, c));
    expect((await profile(again.body.access_token)).status).toBe(200);
    expect((await t.del(`/v4/account/oauth-clients/${c.id}`)).status).toBe(200);
    expect((await profile(again.body.access_token)).status).toBe(401);
    expect((await refresh(t, c, again.body.refresh_token)).body.error).toBe('invalid_client');
    expect((await authorize(authorizeQuery(c))).statusCode).toBe(400);
  });

  it('token: access tokens expire after 2 hours', async () => {
    const c = await createClient(t);
    const tok = await exchange(t, c, await obtainCode(t, c));
    expect((await profile(tok.body.access_token)).status).toBe(200);
    t.clock.advance(7200 * 1000 - 1000);
    expect((await profile(tok.body.access_token)).status).toBe(200);
    t.clock.advance(1000);
    expect((await profile(tok.body.access_token)).status).toBe(401);
    // The refresh token still gives a new one.
    const r = await refresh(t, c, tok.body.refresh_token);
    expect((await profile(r.body.access_token)).status).toBe(200);
  });

  it('token: a code is good once; its reuse revokes the tokens issued from it', async () => {
    const c = await createClient(t);
    const code = await obtainCode(t, c);
    const first = await exchange(t, c, code);
    expect(first.status).toBe(200);
    const second = await exchange(t, c, code);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await profile(first.body.access_token)).status).toBe(401);
  });

  it('token: an expired code is refused', async () => {
    const c = await createClient(t);
    const code = await obtainCode(t, c);
    t.clock.advance(5 * 60 * 1000);
    const r = await exchange(t, c, code);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it('token: a code presented by another client is refused', async () => {
    const a = await createClient(t);
    const b = await createClient(t, { label: 'Other' });
    const code = await obtainCode(t, a);
    const r = await exchange(t, b, code);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
    expect((await exchange(t, a, code)).status).toBe(200);
  });

  it('token: redirect_uri must repeat the authorization request’s', async () => {
    const c = await createClient(t);
    const code = await obtainCode(t, c, { redirect_uri: REDIRECT });
    expect((await exchange(t, c, code)).body.error).toBe('invalid_grant');
    const other = await obtainCode(t, c, { redirect_uri: REDIRECT });
    expect((await exchange(t, c, other, { redirect_uri: 'https://evil.example/cb' })).status).toBe(
      400,
    );
    const ok = await obtainCode(t, c, { redirect_uri: REDIRECT });
    expect((await exchange(t, c, ok, { redirect_uri: REDIRECT })).status).toBe(200);
  });

  it('authorize: a redirect_uri other than the registered one gets an error page, no redirect', async () => {
    const c = await createClient(t);
    const r = await authorize(authorizeQuery(c, { redirect_uri: 'https://evil.example/cb' }));
    expect(r.statusCode).toBe(400);
    expect(r.headers.location).toBeUndefined();
    expect(r.body).toContain('redirect_uri');
  });

  it('authorize: unknown client_id gets an error page; a bad response_type or scope goes back with error', async () => {
    expect((await authorize({ client_id: 'nope', response_type: 'code' })).statusCode).toBe(400);
    const c = await createClient(t);
    const rt = await authorize(authorizeQuery(c, { response_type: 'token' }));
    expect(rt.statusCode).toBe(302);
    const loc = new URL(String(rt.headers.location));
    expect(loc.searchParams.get('error')).toBe('unsupported_response_type');
    expect(loc.searchParams.get('state')).toBe('st-1');
    const sc = await authorize(authorizeQuery(c, { scopes: 'events:read_only volume:read_only' }));
    const scLoc = new URL(String(sc.headers.location));
    expect(scLoc.searchParams.get('error')).toBe('invalid_scope');
    // The description names the bad scope, not just the rule.
    expect(scLoc.searchParams.get('error_description')).toMatch(
      /^"volume:read_only": unknown area "volume"/,
    );
    const plain = await authorize(
      authorizeQuery(c, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }),
    );
    expect(new URL(String(plain.headers.location)).searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  it('token: PKCE, a wrong verifier is refused and the right one accepted', async () => {
    const c = await createClient(t);
    const { verifier, challenge } = pkce();
    const code = await obtainCode(t, c, {
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const wrong = await exchange(t, c, code, { code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const missing = await exchange(t, c, code);
    expect(missing.status).toBe(400);
    expect((await exchange(t, c, code, { code_verifier: verifier })).status).toBe(200);
  });

  it('token: a public client uses PKCE without a secret, and must use PKCE', async () => {
    const c = await createClient(t, { public: true });
    const noPkce = await authorize(authorizeQuery(c));
    expect(new URL(String(noPkce.headers.location)).searchParams.get('error')).toBe(
      'invalid_request',
    );
    const { verifier, challenge } = pkce();
    const code = await obtainCode(t, c, {
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const r = await exchange(t, c, code, { code_verifier: verifier });
    expect(r.status).toBe(200);
    expect((await profile(r.body.access_token)).status).toBe(200);
  });

  it('token: a confidential client needs its secret (body or HTTP Basic)', async () => {
    const c = await createClient(t);
    const code = await obtainCode(t, c);
    const none = await form(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: c.id,
      code,
    });
    expect(none.statusCode).toBe(401);
    expect(JSON.parse(none.body).error).toBe('invalid_client');
    const basic = Buffer.from(`${c.id}:${c.secret}`).toString('base64');
    const ok = await form(
      t,
      '/oauth/token',
      { grant_type: 'authorization_code', code },
      { authorization: `Basic ${basic}` },
    );
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    const malformed = await form(
      t,
      '/oauth/token',
      { grant_type: 'authorization_code', code },
      {
        authorization: `Basic ${Buffer.from(`${c.id}:%E0%A4%A`).toString('base64')}`,
      },
    );
    expect(malformed.statusCode).toBe(401);
  });

  it('token: unsupported grant types are refused', async () => {
    const c = await createClient(t);
    const r = await form(t, '/oauth/token', {
      grant_type: 'password',
      client_id: c.id,
      client_secret: c.secret,
    });
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body).error).toBe('unsupported_grant_type');
  });

  it('consent: a denial goes back with access_denied and no code', async () => {
    const c = await createClient(t);
    const q = authorizeQuery(c);
    const consent = await signIn(t, q);
    const back = await form(t, '/oauth/consent', {
      ticket: ticketOf(consent.body),
      decision: 'deny',
    });
    const to = new URL(String(back.headers.location));
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('code')).toBeNull();
  });

  it('consent: a ticket is good once', async () => {
    const c = await createClient(t);
    const consent = await signIn(t, authorizeQuery(c));
    const ticket = ticketOf(consent.body);
    expect((await form(t, '/oauth/consent', { ticket, decision: 'approve' })).statusCode).toBe(302);
    expect((await form(t, '/oauth/consent', { ticket, decision: 'approve' })).statusCode).toBe(400);
  });

  it('revoke: an access token stops working; a refresh token revokes its family', async () => {
    const c = await createClient(t);
    const tok = await exchange(t, c, await obtainCode(t, c));
    const r = await form(t, '/oauth/revoke', {
      token: tok.body.access_token,
      client_id: c.id,
      client_secret: c.secret,
    });
    expect(r.statusCode).toBe(200);
    expect((await profile(tok.body.access_token)).status).toBe(401);
    const tok2 = await exchange(t, c, await obtainCode(t, c));
    await form(t, '/oauth/revoke', {
      token: tok2.body.refresh_token,
      client_id: c.id,
      client_secret: c.secret,
    });
    expect((await profile(tok2.body.access_token)).status).toBe(401);
    expect((await refresh(t, c, tok2.body.refresh_token)).status).toBe(400);
  });

  it('revoke: another client cannot revoke a token it was not issued', async () => {
    const a = await createClient(t);
    const b = await createClient(t, { label: 'B' });
    const tok = await exchange(t, a, await obtainCode(t, a));
    const r = await form(t, '/oauth/revoke', {
      token: tok.body.access_token,
      client_id: b.id,
      client_secret: b.secret,
    });
    expect(r.statusCode).toBe(200);
    expect((await profile(tok.body.access_token)).status).toBe(200);
  });

  it('getProfileApps: lists what the user granted; deleteProfileApp revokes its tokens', async () => {
    const c = await createClient(t);
    const tok = await exchange(t, c, await obtainCode(t, c, { scopes: 'account:read_only' }));
    const list = await t.get('/v4/profile/apps');
    expect(list.body.results).toBe(1);
    const app = list.body.data[0];
    expect(app).toMatchObject({
      label: 'Test app',
      scopes: 'account:read_only',
      website: 'https://app.example.com',
      expiry: null,
      thumbnail_url: null,
    });
    expect((await t.get(`/v4/profile/apps/${app.id}`)).body.id).toBe(app.id);
    expect((await t.del(`/v4/profile/apps/${app.id}`)).status).toBe(200);
    expect((await profile(tok.body.access_token)).status).toBe(401);
    expect((await refresh(t, c, tok.body.refresh_token)).status).toBe(400);
    expect((await t.get(`/v4/profile/apps/${app.id}`)).status).toBe(404);
  });

  it('getProfileApps: another user’s apps are not visible', async () => {
    const c = await createClient(t);
    await exchange(t, c, await obtainCode(t, c));
    const u = await createTestUser(t, { restricted: false });
    expect((await t.get('/v4/profile/apps', { token: u.token })).body.results).toBe(0);
  });

  it('token: a restricted user’s token keeps the user’s grants', async () => {
    const u = await createTestUser(t, { restricted: true });
    await givePassword(t, u.username);
    const c = await createClient(t);
    const tok = await exchange(t, c, await obtainCode(t, c, {}, u.username));
    expect((await profile(tok.body.access_token)).body.restricted).toBe(true);
    expect(
      (await t.get('/v4/account/oauth-clients', { token: tok.body.access_token })).status,
    ).toBe(403);
  });

  it('discovery: RFC 8414 metadata names the endpoints, grants and S256', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      headers: { host: 'stratus.test:8108' },
    });
    expect(r.statusCode).toBe(200);
    const m = JSON.parse(r.body);
    expect(m).toMatchObject({
      issuer: 'http://stratus.test:8108',
      authorization_endpoint: 'http://stratus.test:8108/oauth/authorize',
      token_endpoint: 'http://stratus.test:8108/oauth/token',
      revocation_endpoint: 'http://stratus.test:8108/oauth/revoke',
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
    });
  });
});
