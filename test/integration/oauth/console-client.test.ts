import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken, secondAccount } from '../controls/helpers.js';
import { form, givePassword, pkce, ticketOf } from './fixtures.js';

const HOST = 'cloud.test:8080';
const CALLBACK = `http://${HOST}/console/callback`;
const headers = { host: HOST };

describe('the web console as an OAuth client of the login service', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await givePassword(t, 'owner');
  });
  afterEach(async () => {
    await t.close();
  });

  const authorize = (q: Record<string, string>, host = HOST) =>
    t.app.inject({
      method: 'GET',
      url: `/oauth/authorize?${new URLSearchParams(q)}`,
      headers: { host },
    });

  /** The console's sign-in as a browser goes through it: PKCE, no client secret, no redirect_uri. */
  async function signInAsConsole(username = 'owner'): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = pkce();
    const q = {
      client_id: 'stratus-console',
      response_type: 'code',
      scopes: '*',
      state: 's-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const page = await authorize(q);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Stratus console');
    // The page's policy lets its form end at the console's own origin.
    expect(page.headers['content-security-policy']).toContain(`form-action 'self' http://${HOST}`);
    const consent = await form(
      t,
      '/oauth/login',
      { ...q, username, password: 'correct horse battery', tfa_code: '' },
      headers,
    );
    expect(consent.statusCode).toBe(200);
    const back = await form(
      t,
      '/oauth/consent',
      { ticket: ticketOf(consent.body), decision: 'approve' },
      headers,
    );
    expect(back.statusCode).toBe(302);
    const to = new URL(String(back.headers.location));
    expect(`${to.origin}${to.pathname}`).toBe(CALLBACK);
    expect(to.searchParams.get('state')).toBe('s-1');
    return { code: to.searchParams.get('code') ?? '', verifier };
  }

  it('authorize: the console client signs a user in and sends the code to /console/callback on the address it was reached at', async () => {
    const { code, verifier } = await signInAsConsole();
    const tok = await form(
      t,
      '/oauth/token',
      {
        grant_type: 'authorization_code',
        client_id: 'stratus-console',
        code,
        code_verifier: verifier,
      },
      headers,
    );
    expect(tok.statusCode).toBe(200);
    const body = JSON.parse(tok.body);
    expect(body.scopes).toBe('*');
    const me = await t.get('/v4/profile', { token: body.access_token });
    expect(me.body.username).toBe('owner');
  });

  it('authorize: the redirect follows the host name and port (another address, another callback)', async () => {
    const page = await authorize(
      {
        client_id: 'stratus-console',
        response_type: 'code',
        redirect_uri: 'http://evil.test/console/callback',
      },
      'other.test:9999',
    );
    expect(page.statusCode).toBe(400);
    const ok = await authorize(
      {
        client_id: 'stratus-console',
        response_type: 'code',
        redirect_uri: 'http://other.test:9999/console/callback',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      },
      'other.test:9999',
    );
    expect(ok.statusCode).toBe(200);
  });

  it('authorize: the console is a public client, so PKCE is required', async () => {
    const r = await authorize({ client_id: 'stratus-console', response_type: 'code', state: 'x' });
    expect(r.statusCode).toBe(302);
    const to = new URL(String(r.headers.location));
    expect(`${to.origin}${to.pathname}`).toBe(CALLBACK);
    expect(to.searchParams.get('error')).toBe('invalid_request');
  });

  it('token: a code of the console is refused without its verifier', async () => {
    const { code } = await signInAsConsole();
    const tok = await form(
      t,
      '/oauth/token',
      { grant_type: 'authorization_code', client_id: 'stratus-console', code },
      headers,
    );
    expect(tok.statusCode).toBe(400);
    expect(JSON.parse(tok.body).error).toBe('invalid_grant');
  });

  it('authorize: users of every account sign in through the one console client', async () => {
    const other = await secondAccount(t);
    await givePassword(t, 'other');
    const { code, verifier } = await signInAsConsole('other');
    const tok = await form(
      t,
      '/oauth/token',
      {
        grant_type: 'authorization_code',
        client_id: 'stratus-console',
        code,
        code_verifier: verifier,
      },
      headers,
    );
    const me = await t.get('/v4/account', { token: JSON.parse(tok.body).access_token });
    expect(me.body.euuid).toBe(other.euuid);
  });

  it('getClients: no account lists, changes or deletes the system client; its app shows the console site', async () => {
    const list = await t.get('/v4/account/oauth-clients');
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain('stratus-console');
    expect((await t.get('/v4/account/oauth-clients/stratus-console')).status).toBe(404);
    expect(
      (await t.put('/v4/account/oauth-clients/stratus-console', { label: 'mine' })).status,
    ).toBe(404);
    expect((await t.del('/v4/account/oauth-clients/stratus-console')).status).toBe(404);
    await signInAsConsole();
    const apps = await t.get('/v4/profile/apps', { headers });
    expect(apps.body.data).toEqual([
      expect.objectContaining({ label: 'Stratus console', website: `http://${HOST}`, scopes: '*' }),
    ]);
  });

  it('reset: the console client survives a reset of everything and of one account', async () => {
    const o = op(t, await operatorToken(t));
    const restricted = await createTestUser(t);
    expect(restricted.token).toBeTruthy();
    await signInAsConsole();
    expect((await o.post('/_stratus/reset', { euuid: t.admin.euuid })).status).toBe(200);
    expect((await o.post('/_stratus/reset', {})).status).toBe(200);
    const page = await authorize({
      client_id: 'stratus-console',
      response_type: 'code',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Stratus console');
  });

  it('sign-in page: shares the console look (its stylesheet, the brand)', async () => {
    const page = await authorize({
      client_id: 'stratus-console',
      response_type: 'code',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    expect(page.body).toContain('--accent:');
    expect(page.body).toContain('class="auth-card"');
    expect(page.body).toContain('class="brand"');
  });
});
