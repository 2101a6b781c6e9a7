import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { authorizeQuery, type Client, createClient, givePassword, signIn } from './fixtures.js';

describe('oauth sign-in rate limit under concurrency', () => {
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
});
