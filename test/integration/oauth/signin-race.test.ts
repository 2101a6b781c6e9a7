import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  authorizeQuery,
  type Client,
  createClient,
  exchange,
  givePassword,
  form,
  obtainCode,
  signIn,
  ticketOf,
} from './fixtures.js';

describe('oauth login service under concurrency', () => {
  let t: TestApp;
  let c: Client;
  beforeEach(async () => {
    t = await buildTestApp();
    await givePassword(t, 'owner');
    c = await createClient(t);
  });
  afterEach(async () => {
    await t.close();
  });

  it('signIn: failed sign-ins sent at once get no more than 5 password checks for a user', async () => {
    const q = authorizeQuery(c);
    const all = await Promise.all(
      Array.from({ length: 12 }, () => signIn(t, q, 'owner', 'wrong password')),
    );
    const codes = all.map((r) => r.statusCode);
    expect(codes.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(codes.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
    expect((await signIn(t, q)).statusCode).toBe(429);
    const failed = await t.get('/v4/account/logins', { filter: { status: 'failed' } });
    expect(failed.body.results).toBe(13);
  });

  it('token: one code exchanged six times at once gives tokens once, and the reuse revokes them', async () => {
    const code = await obtainCode(t, c);
    const both = await Promise.all(Array.from({ length: 6 }, () => exchange(t, c, code)));
    expect(both.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    const won = both.find((r) => r.status === 200);
    expect(both.find((r) => r.status === 400)?.body.error).toBe('invalid_grant');
    // RFC 6749 §4.1.2: the tokens issued from a reused code are revoked.
    expect((await t.get('/v4/profile', { token: won?.body.access_token })).status).toBe(401);
  });

  it('consent: approvals sent at once for one user and client make one authorized app', async () => {
    const q = authorizeQuery(c);
    const tickets = [];
    for (let i = 0; i < 6; i++) tickets.push(ticketOf((await signIn(t, q)).body));
    const backs = await Promise.all(
      tickets.map((ticket) => form(t, '/oauth/consent', { ticket, decision: 'approve' })),
    );
    // Not a unique-constraint 500 for the ones that lose the race.
    expect(backs.map((b) => b.statusCode)).toEqual(backs.map(() => 302));
    const codes = backs.map((b) => new URL(String(b.headers.location)).searchParams.get('code'));
    expect(codes.every((code) => code !== null)).toBe(true);
    const apps = await t.get('/v4/profile/apps');
    expect(apps.body.results).toBe(1);
    // Every code still works, under the one app.
    for (const code of codes) expect((await exchange(t, c, String(code))).status).toBe(200);
  });
});
