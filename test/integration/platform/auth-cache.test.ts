import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type StratusApp } from '../../../src/app.js';
import type { Principal } from '../../../src/auth/principal.js';
import { PrincipalCache, principalCache } from '../../../src/auth/principal-cache.js';
import { authenticate } from '../../../src/auth/tokens.js';
import { envToConfig } from '../../../src/config/config.js';
import { type AppContext, createContext } from '../../../src/context.js';
import { Database } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrator.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { isoSeconds } from '../../../src/lib/time.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { insertToken } from '../../../src/modules/identity/identity.repository.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, DIALECT, type TestApp } from '../../helpers/build-test-app.js';

const INVALID_TOKEN = { errors: [{ reason: 'Invalid Token' }] };

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 2000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * The principal cache (src/auth/principal-cache.ts) keeps the auth rules exact: every test warms
 * the cache with the token first (and checks the next request is a hit), then mutates, then
 * expects the change on the very next request.
 */
describe('principal cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const cache = () => principalCache(t.ctx.db);

  /** Requests with the token until the cache answers (PostgreSQL: once LISTENing). */
  async function warm(token: string): Promise<void> {
    await until('the cache to answer', async () => {
      const before = cache().stats.hits;
      expect((await t.get('/v4/profile', { token })).status).toBe(200);
      return cache().stats.hits > before;
    });
  }

  const tokenIdOf = async (token: string): Promise<number> =>
    (await t.get('/v4/profile/tokens', { token })).body.data[0].id;

  it('getProfile: repeated requests with one token are answered from the cache', async () => {
    const { token } = await createTestUser(t, { restricted: false });
    await warm(token);
    const before = cache().stats;
    for (let i = 0; i < 3; i++) expect((await t.get('/v4/profile', { token })).status).toBe(200);
    expect(cache().stats.hits - before.hits).toBe(3);
    expect(cache().stats.misses).toBe(before.misses);
  });

  it('authenticate: a cached token is answered without a promise, an uncached one with one', async () => {
    const { token } = await createTestUser(t, { restricted: false });
    await warm(token);
    const hit = authenticate(t.ctx.db, token, t.ctx.clock.nowMs());
    expect(hit).not.toBeInstanceOf(Promise);
    expect((hit as Principal).username).toBeDefined();
    const { token: other } = await createTestUser(t, { restricted: false });
    const miss = authenticate(t.ctx.db, other, t.ctx.clock.nowMs());
    expect(miss).toBeInstanceOf(Promise);
    expect((await miss)?.tokenId).toBeGreaterThan(0);
  });

  it('deletePersonalAccessToken: the deleted token is 401 at once', async () => {
    const { token } = await createTestUser(t, { restricted: false });
    const id = await tokenIdOf(token);
    await warm(token);
    expect((await t.del(`/v4/profile/tokens/${id}`)).status).toBe(404); // another user's token
    expect((await t.get('/v4/profile', { token })).status).toBe(200);
    expect((await t.del(`/v4/profile/tokens/${id}`, { token })).status).toBe(200);
    const r = await t.get('/v4/profile', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_TOKEN);
  });

  it('getProfile: a cached token is 401 the second the clock passes its expiry', async () => {
    const expiry = isoSeconds(t.clock.nowMs() + 10_000);
    const { token } = await createTestUser(t, { restricted: false, expiry });
    await warm(token);
    t.clock.advance(9_999);
    expect((await t.get('/v4/profile', { token })).status).toBe(200);
    t.clock.advance(1);
    const r = await t.get('/v4/profile', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_TOKEN);
  });

  it('deleteUser: the deleted user’s tokens are 401 at once', async () => {
    const { token, username } = await createTestUser(t, { restricted: false });
    await warm(token);
    expect((await t.del(`/v4/account/users/${username}`)).status).toBe(200);
    expect((await t.get('/v4/profile', { token })).status).toBe(401);
  });

  it('updateUser: a rename shows at once in the renamed user’s profile', async () => {
    const { token, username } = await createTestUser(t, { restricted: false });
    await warm(token);
    const renamed = `${username}r`;
    expect((await t.put(`/v4/account/users/${username}`, { username: renamed })).status).toBe(200);
    const r = await t.get('/v4/profile', { token });
    expect(r.status).toBe(200);
    expect(r.body.username).toBe(renamed);
  });

  it('updateUser: restricting a user takes effect at once', async () => {
    const { token, username } = await createTestUser(t, { restricted: false });
    await warm(token);
    expect((await t.get('/v4/account/users', { token })).status).toBe(200);
    expect((await t.put(`/v4/account/users/${username}`, { restricted: true })).status).toBe(200);
    expect((await t.get('/v4/profile', { token })).body.restricted).toBe(true);
    expect((await t.get('/v4/account/users', { token })).status).toBe(403);
    // And back.
    expect((await t.put(`/v4/account/users/${username}`, { restricted: false })).status).toBe(200);
    expect((await t.get('/v4/account/users', { token })).status).toBe(200);
  });

  it('updateUserGrants: a global grant change takes effect at once', async () => {
    const { token, username } = await createTestUser(t, { restricted: true });
    await warm(token);
    expect((await t.get('/v4/account', { token })).status).toBe(403);
    const grant = (account_access: string | null) =>
      t.put(`/v4/account/users/${username}/grants`, { global: { account_access } });
    expect((await grant('read_only')).status).toBe(200);
    expect((await t.get('/v4/account', { token })).status).toBe(200);
    expect((await grant(null)).status).toBe(200);
    expect((await t.get('/v4/account', { token })).status).toBe(403);
  });

  it('updateProfile: the change is visible at once', async () => {
    const { token } = await createTestUser(t, { restricted: false });
    await warm(token);
    expect((await t.get('/v4/profile', { token })).body.timezone).toBe('US/Eastern');
    const put = await t.put('/v4/profile', { timezone: 'Europe/Berlin' }, { token });
    expect(put.status).toBe(200);
    const r = await t.get('/v4/profile', { token });
    expect(r.body.timezone).toBe('Europe/Berlin');
    expect(r.body).toEqual(put.body);
  });

  it('getProfile: an unknown token is not cached: created later, it works at once', async () => {
    const plaintext = `later-${Math.random().toString(36).slice(2)}-0123456789`;
    expect((await t.get('/v4/profile', { token: plaintext })).status).toBe(401);
    // As the admin CLI would, from outside the services.
    await insertToken(
      t.ctx.db,
      {
        accountId: t.admin.accountId,
        userId: t.admin.userId,
        kind: 'pat',
        label: 'later',
        scopes: '*',
        expiry: null,
        plaintext,
      },
      isoSeconds(t.clock.nowMs()),
    );
    expect((await t.get('/v4/profile', { token: plaintext })).status).toBe(200);
  });

  it('getProfile: an entry older than the TTL is read again from the database', async () => {
    const { token } = await createTestUser(t, { restricted: false });
    await warm(token);
    const misses = cache().stats.misses;
    t.clock.advance(61_000);
    expect((await t.get('/v4/profile', { token })).status).toBe(200);
    expect(cache().stats.misses).toBe(misses + 1);
  });

  it('PrincipalCache: holds at most maxEntries, dropping the least recently used', () => {
    const lru = new PrincipalCache({ dialect: 'sqlite', maxEntries: 2 });
    const p = (tokenId: number) => ({ tokenId, userId: tokenId }) as unknown as Principal;
    lru.set('a', p(1), null, 0, lru.generation);
    lru.set('b', p(2), null, 0, lru.generation);
    expect(lru.get('a', 0)).toEqual({ principal: p(1) }); // a is now the most recent
    lru.set('c', p(3), null, 0, lru.generation);
    expect(lru.stats.size).toBe(2);
    expect(lru.get('b', 0)).toBeUndefined();
    expect(lru.get('a', 0)).toBeDefined();
    expect(lru.get('c', 0)).toBeDefined();
    // A lookup that started before an invalidation is not stored.
    const generation = lru.generation;
    lru.apply({ kind: 'token', id: 1 });
    lru.set('d', p(4), null, 0, generation);
    expect(lru.get('d', 0)).toBeUndefined();
    expect(lru.get('a', 0)).toBeUndefined();
  });
});

if (DIALECT === 'sqlite') {
  describe('principal cache on SQLite', () => {
    let dir: string;
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('authenticate: a commit by another connection (process) clears the cache within a moment', async () => {
      dir = await mkdtemp(join(tmpdir(), 'stratus-cache-'));
      const url = `sqlite:${join(dir, 'stratus.db')}`;
      const a = Database.connect(url);
      const b = Database.connect(url);
      try {
        await migrateToLatest(a.db, a.dialect);
        const clock = new FakeClock('2026-03-01T12:00:00Z');
        const { token } = await bootstrapAccount(a, clock, {
          email: 'a@example.com',
          username: 'a',
        });
        expect(await authenticate(a, token, clock.nowMs())).toBeDefined();
        expect(await authenticate(a, token, clock.nowMs())).toBeDefined();
        expect(principalCache(a).stats.hits).toBe(1);
        // Another process deletes the token behind the services' back.
        await b.db.deleteFrom('tokens').execute();
        await until(
          'A to see the delete',
          async () => (await authenticate(a, token, clock.nowMs())) === undefined,
          1000,
        );
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}

if (DIALECT === 'postgres') {
  describe('principal cache across processes (PostgreSQL LISTEN/NOTIFY)', () => {
    let t: TestApp;
    let ctxB: AppContext;
    let appB: StratusApp;
    beforeAll(async () => {
      t = await buildTestApp();
      // A second API process on the same database: its own context, pool, cache and listener.
      const config = envToConfig({
        DATABASE_URL: t.url,
        STRATUS_RATE_LIMITS: 'off',
        LOG_LEVEL: 'silent',
      });
      ctxB = await createContext(config, { clock: t.clock });
      appB = await buildApp(ctxB);
      await appB.ready();
    });
    afterAll(async () => {
      await appB.close();
      await ctxB.runner.stop();
      await ctxB.db.close();
      await t.close();
    });

    const profileOnB = async (token: string) =>
      (
        await appB.inject({
          method: 'GET',
          url: '/v4/profile',
          headers: { authorization: `Bearer ${token}` },
        })
      ).statusCode;

    /** Until B answers the token from its cache (its listener is up). */
    async function warmB(token: string): Promise<void> {
      await until('B to cache the token', async () => {
        const before = principalCache(ctxB.db).stats.hits;
        expect(await profileOnB(token)).toBe(200);
        return principalCache(ctxB.db).stats.hits > before;
      });
    }

    it('deletePersonalAccessToken: a token deleted through A is 401 on B within a moment', async () => {
      const { token } = await createTestUser(t, { restricted: false });
      await warmB(token);
      const id = (await t.get('/v4/profile/tokens', { token })).body.data[0].id;
      expect((await t.del(`/v4/profile/tokens/${id}`, { token })).status).toBe(200);
      await until('B to answer 401', async () => (await profileOnB(token)) === 401, 1000);
    });

    it('updateUserGrants: a global grant change through A takes effect on B within a moment', async () => {
      const { token, username } = await createTestUser(t, { restricted: true });
      await warmB(token);
      const account = async () =>
        (
          await appB.inject({
            method: 'GET',
            url: '/v4/account',
            headers: { authorization: `Bearer ${token}` },
          })
        ).statusCode;
      expect(await account()).toBe(403);
      const r = await t.put(`/v4/account/users/${username}/grants`, {
        global: { account_access: 'read_only' },
      });
      expect(r.status).toBe(200);
      await until('B to allow the account', async () => (await account()) === 200, 1000);
    });

    it('getProfile: when the listener connection drops, the cache is cleared until it is back', async () => {
      const { token, userId } = await createTestUser(t, { restricted: false });
      await warmB(token);
      const cacheB = principalCache(ctxB.db);
      const pid = cacheB.listenerPid;
      expect(pid).toBeDefined();
      await sql`select pg_terminate_backend(${pid})`.execute(t.ctx.db.db);
      await until('the listener to reconnect', () => {
        const now = cacheB.listenerPid;
        return now !== undefined && now !== pid;
      });
      // Nothing held from before the drop: a change nobody notified is seen at once.
      expect(cacheB.stats.size).toBe(0);
      await t.ctx.db.db.deleteFrom('tokens').where('user_id', '=', userId).execute();
      expect(await profileOnB(token)).toBe(401);
    });
  });
}
