import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/lib/time.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const INVALID_TOKEN = { errors: [{ reason: 'Invalid Token' }] };
const MISSING_SCOPE = {
  errors: [{ reason: 'Your OAuth token is not authorized to use this endpoint.' }],
};

describe('authentication and scopes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const profileWith = (headers: Record<string, string>) =>
    t.get('/v4/profile', { token: null, headers });

  it('getProfile: a missing Authorization header is 401 Invalid Token', async () => {
    const r = await t.get('/v4/profile', { token: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_TOKEN);
    expect(r.headers['x-oauth-scopes']).toBeUndefined();
  });

  it('getProfile: an unknown token is 401 Invalid Token', async () => {
    for (const token of ['0123456789abcdef0123456789abcdef', 'short']) {
      const r = await t.get('/v4/profile', { token });
      expect(r.status, token).toBe(401);
      expect(r.body).toEqual(INVALID_TOKEN);
    }
  });

  it('getProfile: a malformed Authorization header is 401 Invalid Token', async () => {
    for (const authorization of [
      'Bearer',
      'Bearer ',
      `Token ${t.admin.token}`,
      `Basic ${Buffer.from('owner:pw').toString('base64')}`,
      `Bearer ${t.admin.token} extra`,
      t.admin.token,
    ]) {
      const r = await profileWith({ authorization });
      expect(r.status, authorization).toBe(401);
      expect(r.body).toEqual(INVALID_TOKEN);
    }
  });

  it('getProfile: the Bearer keyword is case-insensitive', async () => {
    const r = await profileWith({ authorization: `bearer ${t.admin.token}` });
    expect(r.status).toBe(200);
    expect(r.body.username).toBe('owner');
  });

  it('getProfile: an expired token is 401 Invalid Token', async () => {
    const { token } = await createTestUser(t, {
      restricted: false,
      expiry: '2026-03-01T11:59:59',
    });
    const r = await t.get('/v4/profile', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_TOKEN);
  });

  it('getProfile: a token stops working when the clock passes its expiry', async () => {
    const expiry = isoSeconds(t.clock.nowMs() + 30 * 60_000);
    const { token } = await createTestUser(t, { restricted: false, expiry });
    expect((await t.get('/v4/profile', { token })).status).toBe(200);
    t.clock.advance(29 * 60_000);
    expect((await t.get('/v4/profile', { token })).status).toBe(200);
    t.clock.advance(60_000);
    const r = await t.get('/v4/profile', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_TOKEN);
  });

  it('getProfile: a deleted token is 401 Invalid Token', async () => {
    const { token } = await createTestUser(t, { restricted: false });
    expect((await t.get('/v4/profile', { token })).status).toBe(200);
    const own = await t.get('/v4/profile/tokens', { token });
    expect(own.status).toBe(200);
    // Deleted through the API (a token may revoke itself): the principal cache is invalidated
    // at commit (test/integration/platform/auth-cache.test.ts has the other mutations).
    expect((await t.del(`/v4/profile/tokens/${own.body.data[0].id}`, { token })).status).toBe(200);
    const r = await t.get('/v4/profile', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_TOKEN);
  });

  it('getEvents: a token without the route scope is 401 with the scope message', async () => {
    const { token } = await createTestUser(t, {
      restricted: false,
      scopes: 'account:read_write computes:read_write',
    });
    const r = await t.get('/v4/account/events', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(MISSING_SCOPE);
    expect(r.headers['x-accepted-oauth-scopes']).toBe('events:read_only');
    expect(r.headers['x-oauth-scopes']).toBe('account:read_write computes:read_write');
  });

  it('getEvents: read_write implies read_only', async () => {
    const { token } = await createTestUser(t, { restricted: false, scopes: 'events:read_write' });
    const r = await t.get('/v4/account/events', { token });
    expect(r.status).toBe(200);
    expect(r.headers['x-oauth-scopes']).toBe('events:read_write');
  });

  it('getEvents: * grants every scope', async () => {
    const r = await t.get('/v4/account/events');
    expect(r.status).toBe(200);
    expect(r.headers['x-oauth-scopes']).toBe('*');
    expect(r.headers['x-accepted-oauth-scopes']).toBe('events:read_only');
  });

  it('getEvents: space- and comma-separated scope lists both parse', async () => {
    for (const scopes of [
      'events:read_only account:read_only',
      'account:read_only,events:read_only',
      'account:read_only, events:read_only',
    ]) {
      const { token } = await createTestUser(t, { restricted: false, scopes });
      const r = await t.get('/v4/account/events', { token });
      expect(r.status, scopes).toBe(200);
      expect(r.headers['x-oauth-scopes'], scopes).toBe('account:read_only events:read_only');
    }
  });

  it('getProfile: any valid token works whatever its scopes', async () => {
    const { token } = await createTestUser(t, { restricted: false, scopes: 'longview:read_only' });
    const r = await t.get('/v4/profile', { token });
    expect(r.status).toBe(200);
    expect(r.headers['x-oauth-scopes']).toBe('longview:read_only');
    expect(r.headers['x-accepted-oauth-scopes']).toBe('*');
  });

  it('getRegions: public routes work without a token and announce * and unknown scopes', async () => {
    for (const url of [
      '/v4/regions',
      '/v4/regions/us-east',
      '/v4/compute/types',
      '/v4/compute/kernels',
      '/v4/images',
    ]) {
      const r = await t.get(url, { token: null });
      expect(r.status, url).toBe(200);
      expect(r.headers['x-oauth-scopes'], url).toBe('unknown');
      expect(r.headers['x-accepted-oauth-scopes'], url).toBe('*');
    }
  });

  it('getRegions: a public route also answers a caller with a valid token', async () => {
    const r = await t.get('/v4/regions');
    expect(r.status).toBe(200);
    expect(r.headers['x-oauth-scopes']).toBe('*');
  });

  it('getImage: a public route announces the scope the real service names', async () => {
    const r = await t.get('/v4/images/compute/debian12', { token: null });
    expect(r.status).toBe(200);
    expect(r.headers['x-accepted-oauth-scopes']).toBe('images:read_only');
  });

  it('attachVolume: several required scopes are announced comma-separated', async () => {
    const r = await t.post('/v4/volumes/1/attach', { compute_id: 1 });
    expect(r.headers['x-accepted-oauth-scopes']).toBe('volumes:read_write,computes:read_write');
  });

  it('getProfile: answers are application/json with the real security headers', async () => {
    const r = await t.get('/v4/profile');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['x-frame-options']).toBe('DENY');
    const e = await t.get('/v4/nothing-here');
    expect(e.headers['content-type']).toBe('application/json');
  });

  it('getProfile: every response carries the spec version and CORS headers', async () => {
    const r = await t.get('/v4/profile');
    expect(r.headers['x-spec-version']).toBe('4.174.0');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-expose-headers']).toBe(
      'X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Status',
    );
  });
});

describe('account isolation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('getEvents: another account sees none of the first account’s events', async () => {
    const mine = await t.ctx.events.record(t.ctx.db, {
      accountId: t.admin.accountId,
      action: 'profile_update',
      entity: null,
      status: 'notification',
      username: 'owner',
    });
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other-owner',
    });
    const theirs = await t.ctx.events.record(t.ctx.db, {
      accountId: other.accountId,
      action: 'profile_update',
      entity: null,
      status: 'notification',
      username: 'other-owner',
    });

    const ownList = await t.get('/v4/account/events');
    expect(ownList.body.data.map((e: { id: number }) => e.id)).toEqual([mine]);

    const list = await t.get('/v4/account/events', { token: other.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1 });
    expect(list.body.data.map((e: { id: number }) => e.id)).toEqual([theirs]);

    const one = await t.get(`/v4/account/events/${mine}`, { token: other.token });
    expect(one.status).toBe(404);
    expect(one.body).toEqual({ errors: [{ reason: 'Not found' }] });

    const seen = await t.post(`/v4/account/events/${mine}/seen`, undefined, {
      token: other.token,
    });
    expect(seen.status).toBe(404);
    expect(seen.body).toEqual({ errors: [{ reason: 'Not found' }] });

    const profile = await t.get('/v4/profile', { token: other.token });
    expect(profile.body.username).toBe('other-owner');
    expect(profile.headers['x-customer-uuid']).toBe(other.euuid);
  });
});
