import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type StratusApp } from '../../../src/app.js';
import { envToConfig } from '../../../src/config/config.js';
import { type AppContext, createContext } from '../../../src/context.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { feedVersion } from '../../../src/modules/events/events.feed.js';
import { entityRefs, type NewEvent } from '../../../src/modules/events/events.types.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { recordEvent } from '../../helpers/events.js';
import { buildTestApp, DIALECT, type TestApp } from '../../helpers/build-test-app.js';

const DAY = 86_400_000;
const FILTER = { 'entity.id': 1 };

/**
 * The events feed's page cache (src/modules/events/events.feed.ts) must never show a page the
 * database would not: every test caches a page first (and checks the next request is a hit),
 * then changes the feed, then expects the change on the very next request.
 */
describe('events feed cache', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const stats = () => t.ctx.areas.events.events.cache.stats;
  const record = (e: Partial<NewEvent> = {}): Promise<number> => recordEvent(t, e);
  const page = async (opts: { token?: string; filter?: unknown; query?: string } = {}) => {
    const r = await t.get(`/v4/account/events${opts.query ?? ''}`, {
      filter: opts.filter ?? FILTER,
      ...(opts.token !== undefined ? { token: opts.token } : {}),
    });
    expect(r.status).toBe(200);
    return r;
  };
  /** Requests the page twice: the second must come from the cache. Returns its body. */
  const cached = async (opts: Parameters<typeof page>[0] = {}) => {
    await page(opts);
    const hits = stats().hits;
    const r = await page(opts);
    expect(stats().hits).toBe(hits + 1);
    return r;
  };

  it('getEvents: a repeated page is answered from the cache, the same bytes and headers', async () => {
    await record();
    await record({ action: 'compute_reboot' });
    const first = await page();
    const hits = stats().hits;
    const second = await page();
    expect(stats().hits).toBe(hits + 1);
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toBe('application/json');
    expect(second.body).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(second.body.data.map((e: { action: string }) => e.action)).toEqual([
      'compute_reboot',
      'compute_boot',
    ]);
  });

  it('getEvents: an event recorded after the page was cached is on the next page', async () => {
    await record();
    expect((await cached()).body.results).toBe(1);
    const id = await record({ action: 'compute_shutdown' });
    const r = await page();
    expect(r.body.results).toBe(2);
    expect(r.body.data[0].id).toBe(id);
  });

  it('updateEvent: progress and the end of an event show on the next page', async () => {
    const id = await record({ status: 'started', percentComplete: 0 });
    expect((await cached()).body.data[0]).toMatchObject({ status: 'started', percent_complete: 0 });
    await t.ctx.events.update(t.ctx.db, id, { status: 'started', percentComplete: 50 });
    expect((await page()).body.data[0]).toMatchObject({ percent_complete: 50 });
    await cached();
    // A change that keeps the status (progress alone, a message) shows too.
    await t.ctx.events.update(t.ctx.db, id, { percentComplete: 75, message: 'three quarters' });
    expect((await page()).body.data[0]).toMatchObject({
      status: 'started',
      percent_complete: 75,
      message: 'three quarters',
    });
    await cached();
    t.clock.advance(4_000);
    await t.ctx.events.update(t.ctx.db, id, { status: 'finished' });
    expect((await page()).body.data[0]).toMatchObject({
      status: 'finished',
      percent_complete: 100,
      duration: 4,
    });
  });

  it('eventRead and eventSeen: the next page shows them', async () => {
    const id = await record();
    expect((await cached()).body.data[0]).toMatchObject({ read: false, seen: false });
    expect((await t.post(`/v4/account/events/${id}/read`)).status).toBe(200);
    expect((await page()).body.data[0]).toMatchObject({ read: true, seen: false });
    await cached();
    expect((await t.post(`/v4/account/events/${id}/seen`)).status).toBe(200);
    expect((await page()).body.data[0]).toMatchObject({ read: true, seen: true });
  });

  it('getEvents: an event leaves the cached page the second it is more than 90 days old', async () => {
    await record({ action: 'compute_create' });
    t.clock.advance(DAY);
    await record();
    expect((await cached()).body.results).toBe(2);
    t.clock.advance(89 * DAY);
    expect((await cached()).body.results).toBe(2); // the first is exactly 90 days old
    t.clock.advance(1_000);
    const r = await page();
    expect(r.body.results).toBe(1);
    expect(r.body.data[0].action).toBe('compute_boot');
  });

  it('getEvents: pages, page sizes and filters are cached apart', async () => {
    for (let i = 0; i < 30; i++) await record({ entity: entityRefs.compute(1 + (i % 2), 'w') });
    const one = (await cached()).body;
    const two = (await cached({ filter: { 'entity.id': 2 } })).body;
    expect(one.data.every((e: { entity: { id: number } }) => e.entity.id === 1)).toBe(true);
    expect(two.data.every((e: { entity: { id: number } }) => e.entity.id === 2)).toBe(true);
    const p1 = (await cached({ filter: {}, query: '?page_size=25' })).body;
    const p2 = (await cached({ filter: {}, query: '?page_size=25&page=2' })).body;
    expect([p1.data.length, p2.data.length, p1.pages, p2.page]).toEqual([25, 5, 2, 2]);
    expect(p2.data[0].id).toBe(p1.data[24].id - 1);
    expect((await cached({ filter: {}, query: '?page_size=50' })).body.data).toHaveLength(30);
  });

  it('getEvents: another account never gets this account’s cached page', async () => {
    await record();
    await cached();
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other',
    });
    const r = await page({ token: other.token });
    expect(r.body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
  });

  it('recordEvent: a transaction gives the feed a new version; a rolled-back one does not', async () => {
    const version = () => feedVersion(t.ctx.db, t.admin.accountId);
    const before = await version();
    await t.ctx.db.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await recordEvent(t, {}, tx);
    });
    const after = await version();
    expect(after).not.toBe(before);
    expect(Number.isSafeInteger(after) && after > 0).toBe(true);
    await cached();
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await recordEvent(t, { action: 'compute_reboot' }, tx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await version()).toBe(after);
    // Nothing changed: still a hit, still three events.
    expect((await cached()).body.results).toBe(3);
  });

  it('getEvents: a restricted user’s page is never cached, so a new grant shows at once', async () => {
    await record({ entity: entityRefs.compute(7, 'seven') });
    const user = await createTestUser(t, { restricted: true });
    const filter = { 'entity.id': 7 };
    const bypassed = stats().bypassed;
    expect((await page({ token: user.token, filter })).body.results).toBe(0);
    expect((await page({ token: user.token, filter })).body.results).toBe(0);
    expect(stats().bypassed).toBe(bypassed + 2);
    await t.ctx.db.db
      .insertInto('entity_grants')
      .values({
        user_id: user.userId,
        entity_type: 'compute',
        entity_id: 7,
        permissions: 'read_only',
      })
      .execute();
    expect((await page({ token: user.token, filter })).body.results).toBe(1);
  });

  it('getMetrics: counts feed pages by cache hit, miss and bypass', async () => {
    await record();
    await cached();
    const text = (
      await t.get('/_stratus/metrics', { token: await t.ctx.areas.controls.operator.rotate() })
    ).text;
    const count = (cache: string) =>
      Number(
        new RegExp(`stratus_event_feed_pages_total\\{cache="${cache}"\\} (\\d+)`).exec(text)?.[1],
      );
    expect(count('hit')).toBe(stats().hits);
    expect(count('miss')).toBe(stats().misses);
    expect(count('hit')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/stratus_event_feed_cache_bytes [1-9]\d*/);
  });
});

describe('events feed cache across processes', () => {
  let dir: string | undefined;
  let url: string;
  let t: TestApp | undefined;
  const contexts: AppContext[] = [];
  const apps: StratusApp[] = [];

  beforeAll(async () => {
    if (DIALECT === 'postgres') {
      t = await buildTestApp();
      url = t.url;
    } else {
      dir = await mkdtemp(join(tmpdir(), 'stratus-feed-'));
      url = `sqlite:${join(dir, 'stratus.db')}`;
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const ctx of contexts) {
      await ctx.runner.stop();
      await ctx.db.close();
    }
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** An API process on the shared database: its own context, connections and cache. */
  async function apiProcess(clock: FakeClock): Promise<{ ctx: AppContext; app: StratusApp }> {
    const config = envToConfig({
      DATABASE_URL: url,
      STRATUS_RATE_LIMITS: 'off',
      STRATUS_WORKER: 'off',
      LOG_LEVEL: 'silent',
    });
    const ctx = await createContext(config, { clock });
    const app = await buildApp(ctx);
    await app.ready();
    contexts.push(ctx);
    apps.push(app);
    return { ctx, app };
  }

  it('getEvents: an event written by another process is on this process’s very next page', async () => {
    const clock = t?.clock ?? new FakeClock('2026-03-01T12:00:00Z');
    const a = await apiProcess(clock);
    const b = await apiProcess(clock);
    const owner = await bootstrapAccount(a.ctx.db, clock, {
      email: 'feed@example.com',
      username: 'feed-owner',
    });
    const list = async () => {
      const r = await a.app.inject({
        method: 'GET',
        url: '/v4/account/events',
        headers: {
          authorization: `Bearer ${owner.token}`,
          'x-filter': JSON.stringify({ 'entity.type': 'compute' }),
        },
      });
      expect(r.statusCode).toBe(200);
      return r.json() as { results: number; data: { action: string; percent_complete: number }[] };
    };
    const event: NewEvent = {
      accountId: owner.accountId,
      action: 'compute_create',
      entity: entityRefs.compute(1, 'web-1'),
      status: 'started',
      percentComplete: 0,
      username: 'feed-owner',
    };
    const id = await b.ctx.events.record(b.ctx.db, event);
    expect((await list()).results).toBe(1);
    const hits = a.ctx.areas.events.events.cache.stats.hits;
    expect((await list()).results).toBe(1);
    expect(a.ctx.areas.events.events.cache.stats.hits).toBe(hits + 1);
    // B moves the event along and records another: A's next page shows both, no waiting.
    await b.ctx.events.update(b.ctx.db, id, { status: 'started', percentComplete: 40 });
    expect((await list()).data[0]?.percent_complete).toBe(40);
    await b.ctx.events.record(b.ctx.db, { ...event, action: 'compute_boot' });
    const after = await list();
    expect(after.results).toBe(2);
    expect(after.data[0]?.action).toBe('compute_boot');
  });
});
