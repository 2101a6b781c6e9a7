import * as oauth from 'oauth4webapi';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createClient, form, givePassword, REDIRECT, signIn, ticketOf } from './fixtures.js';

const ISSUER = new URL('http://stratus.test');

/** oauth4webapi's fetch, answered by the app in-process (what a real socket would carry). */
function injectFetch(t: TestApp) {
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    const u = new URL(url);
    const headers: Record<string, string> = { host: u.host };
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    const r = await t.app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: `${u.pathname}${u.search}`,
      headers,
      ...(body !== undefined ? { payload: body } : {}),
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(r.headers))
      if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    return new Response(r.statusCode === 204 ? null : r.rawPayload, {
      status: r.statusCode,
      headers: out,
    });
  };
}

describe('oauth login service with a standard client library (oauth4webapi)', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await givePassword(t, 'owner');
  });
  afterEach(async () => {
    await t.close();
  });

  it('oauth4webapi: discovery, PKCE code flow, API call, refresh and revocation', async () => {
    const opts = { [oauth.customFetch]: injectFetch(t), [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      ISSUER,
      await oauth.discoveryRequest(ISSUER, { algorithm: 'oauth2', ...opts }),
    );
    expect(as.code_challenge_methods_supported).toEqual(['S256']);

    const registered = await createClient(t);
    const client: oauth.Client = { client_id: registered.id };
    const auth = oauth.ClientSecretBasic(registered.secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authUrl = new URL(String(as.authorization_endpoint));
    authUrl.search = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'account:read_write',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    // The user: the sign-in page, then the consent page.
    const page = await t.app.inject({ method: 'GET', url: `${authUrl.pathname}${authUrl.search}` });
    expect(page.statusCode).toBe(200);
    const query = Object.fromEntries(authUrl.searchParams);
    const consent = await signIn(t, query);
    const back = await form(t, '/oauth/consent', {
      ticket: ticketOf(consent.body),
      decision: 'approve',
    });
    const callback = new URL(String(back.headers.location));

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, verifier, opts),
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(7200);
    expect(tokens.scope).toBe('account:read_write');
    const me = await t.get('/v4/profile', { token: tokens.access_token });
    expect(me.body.username).toBe('owner');

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, String(tokens.refresh_token), opts),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await t.get('/v4/profile', { token: refreshed.access_token })).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.access_token, opts),
    );
    expect((await t.get('/v4/profile', { token: refreshed.access_token })).status).toBe(401);

    // A reused refresh token is an error the library reports as such.
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, String(tokens.refresh_token), opts),
      ),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
