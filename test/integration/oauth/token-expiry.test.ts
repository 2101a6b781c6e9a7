import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createClient, exchange, givePassword, obtainCode } from './fixtures.js';

/** A token never outlives the token that creates it (PATs and OAuth access tokens alike). */
describe('created tokens expire no later than their creator', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const create = (token: string, body: Record<string, unknown>) =>
    t.post('/v4/profile/tokens', { label: 'child', ...body }, { token });

  it('createPersonalAccessToken: a 1-hour token creates tokens that expire within that hour', async () => {
    const parent = await t.post('/v4/profile/tokens', {
      label: 'p',
      expiry: '2026-03-01T13:00:00',
    });
    expect(parent.status).toBe(200);
    const p = parent.body.token as string;
    const omitted = await create(p, {});
    expect(omitted.status).toBe(200);
    expect(omitted.body.expiry).toBe('2026-03-01T13:00:00');
    const never = await create(p, { expiry: null });
    expect(never.body.expiry).toBe('2026-03-01T13:00:00');
    const sooner = await create(p, { expiry: '2026-03-01T12:30:00' });
    expect(sooner.body.expiry).toBe('2026-03-01T12:30:00');
    const later = await create(p, { expiry: '2030-01-01T00:00:00' });
    expect(later.status).toBe(400);
    expect(later.body.errors).toEqual([
      {
        field: 'expiry',
        reason:
          'A token cannot outlive the token that creates it (expiry at most 2026-03-01T13:00:00)',
      },
    ]);
    // Exactly the creator's expiry is allowed.
    expect((await create(p, { expiry: '2026-03-01T13:00:00Z' })).status).toBe(200);
    t.clock.advance(60 * 60 * 1000);
    for (const child of [omitted, never])
      expect((await t.get('/v4/profile', { token: child.body.token })).status).toBe(401);
  });

  it('createPersonalAccessToken: a token without expiry may still create a permanent one', async () => {
    const r = await t.post('/v4/profile/tokens', { label: 'forever' });
    expect(r.body.expiry).toBeNull();
  });

  it('createPersonalAccessToken: a 2-hour OAuth access token cannot mint a permanent token', async () => {
    await givePassword(t, 'owner');
    const c = await createClient(t);
    const issued = await exchange(t, c, await obtainCode(t, c));
    expect(issued.status).toBe(200);
    const access = issued.body.access_token as string;
    const child = await create(access, { expiry: null });
    expect(child.status).toBe(200);
    expect(child.body.expiry).toBe('2026-03-01T14:00:00');
    expect((await create(access, { expiry: '2027-01-01T00:00:00' })).status).toBe(400);
    // The child dies when its creator would have.
    t.clock.advance(2 * 60 * 60 * 1000);
    expect((await t.get('/v4/profile', { token: child.body.token })).status).toBe(401);
  });
});
