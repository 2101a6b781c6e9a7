import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { totpCode } from '../../../src/modules/oauth/totp.js';
import { CHROMIUM_MISSING, chromiumInstalled, launchChromium } from '../../helpers/chromium.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { answerSecurityQuestions, createClient, givePassword, PASSWORD } from './fixtures.js';

/**
 * The whole authorization code flow as a user and an application live it: a standard client
 * library (oauth4webapi) configured from the server's address alone, and a real browser (headless
 * Chromium, Debian's package) that signs in and approves on the login service's pages, then lands
 * on the application's redirect URI (a small HTTP server of the test).
 * Without Chromium the tests fail under CI (CI=true) and are skipped elsewhere.
 */
const installed = chromiumInstalled();
const inCi = process.env.CI === 'true' || process.env.CI === '1';

describe.runIf(!installed && inCi)('oauth browser flow: prerequisites', () => {
  it('chromium: is installed for the browser tests', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

/** The application's callback: records each request's URL and answers a small page. */
async function callbackServer(): Promise<{ server: Server; uri: string; hits: URL[] }> {
  const hits: URL[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname === '/callback') hits.push(u); // not the browser's favicon request
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Signed in</h1>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { server, uri: `http://127.0.0.1:${port}/callback`, hits };
}

// 120 s a test: a browser flow on a loaded machine (both engines side by side in CI) may pass 30 s.
describe.skipIf(!installed)(
  'oauth login service in a real browser (Chromium + oauth4webapi)',
  { timeout: 120_000 },
  () => {
    let browser: Browser;
    let t: TestApp;
    let page: Page;
    let cb: Awaited<ReturnType<typeof callbackServer>>;
    let issuer: URL;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });
    beforeEach(async () => {
      t = await buildTestApp();
      t.clock.set(Date.now());
      await givePassword(t, 'owner');
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = t.app.server.address() as AddressInfo;
      issuer = new URL(`http://127.0.0.1:${port}`);
      cb = await callbackServer();
      page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(15_000);
    });
    afterEach(async () => {
      await page?.context().close();
      await new Promise((r) => cb.server.close(r));
      await t.close();
    });

    interface FlowOptions {
      /** The TOTP code to type (two-factor authentication on). */
      tfa?: () => string;
      trustDevice?: boolean;
      decision?: 'Allow' | 'Deny';
    }

    /**
     * Discovery and a PKCE authorization URL; the browser signs in and answers the consent page,
     * landing on the redirect URI; answers what the application got there.
     */
    async function authorizeInBrowser({
      tfa,
      trustDevice = false,
      decision = 'Allow',
    }: FlowOptions) {
      const opts = { [oauth.allowInsecureRequests]: true };
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...opts }),
      );
      expect(as.issuer).toBe(issuer.origin);
      expect(as.code_challenge_methods_supported).toContain('S256');

      const registered = await createClient(t, { redirect_uri: cb.uri, label: 'Browser app' });
      const client: oauth.Client = { client_id: registered.id };
      const auth = oauth.ClientSecretPost(registered.secret);
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(String(as.authorization_endpoint));
      url.search = new URLSearchParams({
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: cb.uri,
        scope: 'account:read_write computes:read_only',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString();

      await page.goto(url.href);
      expect(await page.locator('h1').textContent()).toBe('Sign in');
      await page.locator('#username').fill('owner');
      await page.locator('#password').fill(PASSWORD);
      if (tfa) {
        // Without the code the page refuses and says why, keeping the username.
        const refused = page.waitForResponse((r) => r.url().endsWith('/oauth/login'));
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect((await refused).status()).toBe(401);
        expect(await page.locator('[role=alert]').textContent()).toMatch(/two-factor|code/i);
        expect(await page.locator('#username').inputValue()).toBe('owner');
        await page.locator('#password').fill(PASSWORD);
        await page.locator('#tfa_code').fill(tfa());
        if (trustDevice) await page.getByLabel(/Trust this device/).check();
      }
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('h1', { hasText: 'Authorize access' }).waitFor();
      const scopes = await page.locator('#scopes li').allTextContents();
      expect(scopes.join('\n')).toContain('account:read_write');
      await page.getByRole('button', { name: decision }).click();
      await page.waitForURL((u) => u.href.startsWith(cb.uri));
      expect(await page.locator('h1').textContent()).toBe('Signed in');

      expect(cb.hits).toHaveLength(1);
      const callback = new URL(page.url());
      expect(callback.search).toBe(cb.hits[0]?.search);
      return { as, client, auth, opts, callback, state, verifier };
    }

    /** authorizeInBrowser, then the code exchanged by the library; answers the tokens. */
    async function browserFlow(o: FlowOptions = {}) {
      const { as, client, auth, opts, callback, state, verifier } = await authorizeInBrowser(o);
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, auth, params, cb.uri, verifier, opts),
      );
      return { as, client, auth, opts, tokens };
    }

    it('browser: sign in, consent, code exchange with PKCE, API call, refresh and revocation', async () => {
      const { as, client, auth, opts, tokens } = await browserFlow();
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.expires_in).toBe(7200);
      const api = await oauth.protectedResourceRequest(
        tokens.access_token,
        'GET',
        new URL('/v4/profile', issuer),
        undefined,
        undefined,
        opts,
      );
      expect(api.status).toBe(200);
      expect(((await api.json()) as { username: string }).username).toBe('owner');

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, String(tokens.refresh_token), opts),
      );
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect((await t.get('/v4/profile', { token: refreshed.access_token })).status).toBe(200);

      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, auth, refreshed.access_token, opts),
      );
      expect((await t.get('/v4/profile', { token: refreshed.access_token })).status).toBe(401);

      // The sign-in is recorded for /account/logins.
      const logins = await t.get('/v4/profile/logins');
      expect(logins.body.data.at(-1)).toMatchObject({ username: 'owner', status: 'successful' });
    });

    it('browser: with two-factor authentication on, the user types the TOTP code; a trusted browser then signs in without one', async () => {
      await answerSecurityQuestions(t);
      const en = await t.post('/v4/profile/tfa-enable');
      const confirmed = await t.post('/v4/profile/tfa-enable-confirm', {
        tfa_code: totpCode(en.body.secret, t.clock.nowMs()),
      });
      expect(confirmed.status).toBe(200);
      t.clock.advance(30_000); // the confirmation's code is spent; sign in with the next one

      const { tokens } = await browserFlow({
        tfa: () => totpCode(en.body.secret, t.clock.nowMs()),
        trustDevice: true,
      });
      expect(
        (await t.get('/v4/profile', { token: tokens.access_token })).body.two_factor_auth,
      ).toBe(true);

      // "Trust this device": the browser kept the HttpOnly device cookie, and the next
      // authorization in it signs in without a code.
      const cookies = await page.context().cookies();
      const device = cookies.find((c) => c.name === 'stratus_device');
      expect(device).toMatchObject({ httpOnly: true, path: '/oauth', sameSite: 'Lax' });
      cb.hits.length = 0;
      const again = await browserFlow();
      expect((await t.get('/v4/profile', { token: again.tokens.access_token })).status).toBe(200);
      expect((await t.get('/v4/profile/devices')).body.results).toBe(1);
    });

    it('browser: denying on the consent page lands on the redirect URI with access_denied and no code', async () => {
      const { as, client, callback, state } = await authorizeInBrowser({ decision: 'Deny' });
      expect(callback.searchParams.get('code')).toBeNull();
      expect(callback.searchParams.get('state')).toBe(state);
      expect(() => oauth.validateAuthResponse(as, client, callback, state)).toThrow(
        expect.objectContaining({ error: 'access_denied' }),
      );
      expect((await t.get('/v4/profile/apps')).body.results).toBe(0);
    });
  },
);
