import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const PUBLIC_LISTS = [
  ['getComputeTypes', '/v4/compute/types'],
  ['getKernels', '/v4/compute/kernels'],
  ['getRegions', '/v4/regions'],
  ['getRegionsAvailability', '/v4/regions/availability'],
  ['getImages', '/v4/images'],
] as const;

const EVENT_COUNT = 130;

describe('pagination', () => {
  let t: TestApp;
  let eventIds: number[];
  beforeAll(async () => {
    t = await buildTestApp();
    eventIds = [];
    await t.ctx.db.transaction(async (tx) => {
      for (let i = 0; i < EVENT_COUNT; i++) {
        eventIds.push(
          await t.ctx.events.record(tx, {
            accountId: t.admin.accountId,
            action: 'profile_update',
            entity: null,
            status: 'notification',
            username: 'owner',
            message: `event ${i}`,
          }),
        );
      }
    });
  });
  afterAll(async () => {
    await t.close();
  });

  for (const [op, url] of PUBLIC_LISTS) {
    it(`${op}: rejects page 0 and a negative page naming page`, async () => {
      for (const page of ['0', '-1']) {
        const r = await t.get(`${url}?page=${page}`, { token: null });
        expect(r.status).toBe(400);
        expect(r.body).toEqual({ errors: [{ reason: 'page must be at least 1', field: 'page' }] });
      }
    });

    it(`${op}: rejects page_size outside 25..500 naming page_size`, async () => {
      for (const size of ['24', '501', '0']) {
        const r = await t.get(`${url}?page_size=${size}`, { token: null });
        expect(r.status, size).toBe(400);
        expect(r.body).toEqual({
          errors: [{ reason: 'page_size must be between 25 and 500', field: 'page_size' }],
        });
      }
    });

    it(`${op}: rejects a page that is not an integer naming page`, async () => {
      const r = await t.get(`${url}?page=1.5`, { token: null });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ errors: [{ reason: 'page must be an integer', field: 'page' }] });
      const s = await t.get(`${url}?page_size=lots`, { token: null });
      expect(s.status).toBe(400);
      expect(s.body).toEqual({
        errors: [{ reason: 'page_size must be an integer', field: 'page_size' }],
      });
    });

    // Region availability has no id (its order is by plan only), so it is not walked here.
    if (op === 'getRegionsAvailability') continue;
    it(`${op}: accepts the bounds 25 and 500 and pages stably by id`, async () => {
      const all = await t.get(`${url}?page_size=500`, { token: null });
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['data', 'page', 'pages', 'results']);
      expect(all.body.page).toBe(1);
      expect(all.body.pages).toBe(1);
      expect(all.body.data).toHaveLength(all.body.results);
      const key = (x: { id: string }) => x.id;
      const keys = all.body.data.map(key);
      expect(new Set(keys).size).toBe(keys.length);

      const pages = Math.max(1, Math.ceil(all.body.results / 25));
      const walked: string[] = [];
      for (let page = 1; page <= pages; page++) {
        const r = await t.get(`${url}?page=${page}&page_size=25`, { token: null });
        expect(r.status).toBe(200);
        expect(r.body.page).toBe(page);
        expect(r.body.pages).toBe(pages);
        expect(r.body.results).toBe(all.body.results);
        expect(r.body.data.length).toBe(Math.min(25, all.body.results - (page - 1) * 25));
        walked.push(...r.body.data.map(key));
      }
      expect(walked).toEqual(keys);
    });
  }

  it('getComputeTypes: defaults to page 1 of 100', async () => {
    const r = await t.get('/v4/compute/types', { token: null });
    expect(r.status).toBe(200);
    expect(r.body.page).toBe(1);
    expect(r.body.data).toHaveLength(Math.min(100, r.body.results));
  });

  it('getComputeTypes: ids are in ascending order', async () => {
    const r = await t.get('/v4/compute/types?page_size=500', { token: null });
    const ids = r.body.data.map((x: { id: string }) => x.id);
    expect(ids).toEqual([...ids].sort());
  });

  it('getKernels: a page beyond the last returns an empty data array', async () => {
    const r = await t.get('/v4/compute/kernels?page=99&page_size=25', { token: null });
    expect(r.status).toBe(200);
    const total = (await t.get('/v4/compute/kernels?page_size=500', { token: null })).body.results;
    expect(r.body).toEqual({ data: [], page: 99, pages: Math.ceil(total / 25), results: total });
  });

  it('getEvents: defaults to page 1 of 100 and reports pages and results', async () => {
    const r = await t.get('/v4/account/events');
    expect(r.status).toBe(200);
    expect(r.body.page).toBe(1);
    expect(r.body.pages).toBe(2);
    expect(r.body.results).toBe(EVENT_COUNT);
    expect(r.body.data).toHaveLength(100);
  });

  it('getEvents: page 2 holds the rest, newest first, with no overlap', async () => {
    const p1 = await t.get('/v4/account/events');
    const p2 = await t.get('/v4/account/events?page=2');
    expect(p2.status).toBe(200);
    expect(p2.body.page).toBe(2);
    expect(p2.body.pages).toBe(2);
    expect(p2.body.data).toHaveLength(EVENT_COUNT - 100);
    const ids = [...p1.body.data, ...p2.body.data].map((e: { id: number }) => e.id);
    expect(ids).toEqual([...eventIds].sort((a, b) => b - a));
  });

  it('getEvents: page_size 25 walks every event exactly once in id order', async () => {
    const walked: number[] = [];
    for (let page = 1; page <= Math.ceil(EVENT_COUNT / 25); page++) {
      const r = await t.get(`/v4/account/events?page=${page}&page_size=25`);
      expect(r.body.pages).toBe(Math.ceil(EVENT_COUNT / 25));
      walked.push(...r.body.data.map((e: { id: number }) => e.id));
    }
    expect(walked).toEqual([...eventIds].sort((a, b) => b - a));
  });

  it('getEvents: page_size 500 returns every event on one page', async () => {
    const r = await t.get('/v4/account/events?page_size=500');
    expect(r.body).toMatchObject({ page: 1, pages: 1, results: EVENT_COUNT });
    expect(r.body.data).toHaveLength(EVENT_COUNT);
  });

  it('getEvents: a page beyond the last returns an empty data array', async () => {
    const r = await t.get('/v4/account/events?page=3');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [], page: 3, pages: 2, results: EVENT_COUNT });
  });

  it('getComputeInstances: a page number past any offset the database takes is an empty page, not a 500', async () => {
    for (const url of [
      '/v4/compute/instances',
      '/v4/images',
      '/v4/regions',
      '/v4/networking/firewalls',
      '/v4/object-storage/buckets',
      '/v4/account/events',
    ]) {
      const r = await t.get(`${url}?page=99999999999999999999`);
      expect(r.status, `${url}: ${r.text}`).toBe(200);
      expect(r.body.data, url).toEqual([]);
      expect(r.body.page, url).toBe(1e20);
    }
  });

  it('getEvents: rejects page_size above 500 naming the parameter', async () => {
    const r = await t.get('/v4/account/events?page_size=501');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [{ reason: 'page_size must be between 25 and 500', field: 'page_size' }],
    });
  });

  it('getEvents: an empty list has page 1 of 1 and no results', async () => {
    const fresh = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'fresh@example.com',
      username: 'fresh-owner',
    });
    const r = await t.get('/v4/account/events', { token: fresh.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
  });
});
