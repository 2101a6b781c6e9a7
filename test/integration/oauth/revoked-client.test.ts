import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  authorizeQuery,
  createClient,
  exchange,
  form,
  givePassword,
  obtainCode,
  signIn,
  ticketOf,
} from './fixtures.js';

describe('oauth login service: revoked clients and the pages’ security headers', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await givePassword(t, 'owner');
  });
  afterEach(async () => {
    await t.close();
  });

  const csp = (h: Record<string, unknown>) => String(h['content-security-policy']);

  it('token: a code issued before its client was deleted is refused', async () => {
    const c = await createClient(t);
    const code = await obtainCode(t, c);
    expect((await t.del(`/v4/account/oauth-clients/${c.id}`)).status).toBe(200);
    const r = await exchange(t, c, code);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
    expect(r.body.access_token).toBeUndefined();
  });

  it('consent: a sign-in ticket of a client deleted since gives no code', async () => {
    const c = await createClient(t);
    const consent = await signIn(t, authorizeQuery(c));
    expect(consent.headers['cache-control']).toBe('no-store');
    expect(consent.statusCode).toBe(200);
    await t.del(`/v4/account/oauth-clients/${c.id}`);
    const back = await form(t, '/oauth/consent', {
      ticket: ticketOf(consent.body),
      decision: 'approve',
    });
    expect(back.statusCode).toBe(400);
    expect(back.headers.location).toBeUndefined();
  });

  it('token: the old secret of a reset client cannot exchange a code', async () => {
    const c = await createClient(t);
    const code = await obtainCode(t, c);
    const reset = await t.post(`/v4/account/oauth-clients/${c.id}/reset-secret`);
    const old = await exchange(t, c, code);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    const fresh = await exchange(t, { ...c, secret: reset.body.secret }, code);
    expect(fresh.status).toBe(200);
  });

  it('authorize: the pages’ form-action allows the client’s redirect origin and no other; pages are not cached', async () => {
    const c = await createClient(t, { redirect_uri: 'https://app.example.com:8443/cb?x=1' });
    const page = await t.app.inject({
      method: 'GET',
      url: `/oauth/authorize?${new URLSearchParams(authorizeQuery(c))}`,
    });
    expect(page.statusCode).toBe(200);
    expect(csp(page.headers)).toMatch(/form-action 'self' https:\/\/app\.example\.com:8443$/);
    expect(csp(page.headers)).toContain("default-src 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');

    const consent = await signIn(t, authorizeQuery(c));
    expect(consent.headers['cache-control']).toBe('no-store');
    expect(csp(consent.headers)).toMatch(/form-action 'self' https:\/\/app\.example\.com:8443$/);
    const failed = await signIn(t, authorizeQuery(c), 'owner', 'wrong password');
    expect(failed.statusCode).toBe(401);
    expect(csp(failed.headers)).toMatch(/form-action 'self' https:\/\/app\.example\.com:8443$/);

    // An error page (unknown client) allows only the service itself.
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/oauth/authorize?client_id=nope&response_type=code',
    });
    expect(unknown.statusCode).toBe(400);
    expect(csp(unknown.headers)).toMatch(/form-action 'self'$/);
  });
});
