import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const TOO_MANY = { errors: [{ reason: 'Too many requests' }] };
/** The fake clock starts on a minute boundary: every window ends 60 s later. */
const START_MS = Date.parse('2026-03-01T12:00:00Z');
const START_S = START_MS / 1000;

describe('rate limits on', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ rateLimits: true });
  });
  // One app for speed: every test starts with empty counters at the start of a window.
  beforeEach(async () => {
    await t.ctx.rateLimits.reset();
    t.clock.set(START_MS);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Sends n requests and returns the statuses. */
  async function burst(n: number, send: () => Promise<{ status: number }>): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await send()).status);
    return out;
  }

  const fromAddress = async (url: string, remoteAddress: string) => {
    const r = await t.app.inject({ method: 'GET', url, remoteAddress });
    return { status: r.statusCode, headers: r.headers, body: r.json() };
  };

  it('getEvents: every answer carries X-RateLimit-Limit, -Remaining and -Reset', async () => {
    const first = await t.get('/v4/account/events');
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('200');
    expect(first.headers['x-ratelimit-remaining']).toBe('199');
    expect(first.headers['x-ratelimit-reset']).toBe(String(START_S + 60));
    const second = await t.get('/v4/account/events');
    expect(second.headers['x-ratelimit-remaining']).toBe('198');
  });

  it('getProfile: a non-paged operation has the 400 per minute limit', async () => {
    const r = await t.get('/v4/profile');
    expect(r.headers['x-ratelimit-limit']).toBe('400');
    expect(r.headers['x-ratelimit-remaining']).toBe('399');
  });

  it('getEvents: the 201st paged GET in a minute from one token is 429 with Retry-After', async () => {
    const statuses = await burst(200, () => t.get('/v4/account/events'));
    expect(statuses.every((s) => s === 200)).toBe(true);
    t.clock.advance(15_000);
    const r = await t.get('/v4/account/events');
    expect(r.status).toBe(429);
    expect(r.body).toEqual(TOO_MANY);
    expect(r.headers['retry-after']).toBe('45');
    expect(r.headers['x-ratelimit-limit']).toBe('200');
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
    expect(r.headers['x-ratelimit-reset']).toBe(String(START_S + 60));
  });

  it('getEvents: works again once the clock passes the window', async () => {
    await burst(200, () => t.get('/v4/account/events'));
    expect((await t.get('/v4/account/events')).status).toBe(429);
    t.clock.advance(59_000);
    expect((await t.get('/v4/account/events')).status).toBe(429);
    t.clock.advance(1_000);
    const r = await t.get('/v4/account/events');
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-remaining']).toBe('199');
    expect(r.headers['x-ratelimit-reset']).toBe(String(START_S + 120));
  });

  it('getEvents: limits are counted per user: another user has its own', async () => {
    await burst(201, () => t.get('/v4/account/events'));
    expect((await t.get('/v4/account/events')).status).toBe(429);
    const { token } = await createTestUser(t, { restricted: false });
    const r = await t.get('/v4/account/events', { token });
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-remaining']).toBe('199');
  });

  it('getEvents: the tokens of one user share its limit (three tokens are not three limits)', async () => {
    const u = await createTestUser(t, { restricted: false });
    const more = [];
    for (const label of ['second', 'third'])
      more.push((await t.post('/v4/profile/tokens', { label }, { token: u.token })).body.token);
    const tokens = [u.token, ...more];
    // 200 requests spread over three tokens exhaust the user's 200 per minute.
    let i = 0;
    const statuses = await burst(200, async () =>
      t.get('/v4/account/events', { token: tokens[i++ % tokens.length] }),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (const token of tokens) {
      const r = await t.get('/v4/account/events', { token });
      expect(r.status).toBe(429);
      expect(r.headers['x-ratelimit-remaining']).toBe('0');
    }
  });

  it('getEvents: limits are counted per operation', async () => {
    await burst(201, () => t.get('/v4/account/events'));
    const r = await t.get('/v4/profile');
    expect(r.status).toBe(200);
  });

  it('getRegions: public endpoints without a token are counted per address', async () => {
    const statuses = await burst(200, () => fromAddress('/v4/regions', '10.0.0.1'));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = await fromAddress('/v4/regions', '10.0.0.1');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(TOO_MANY);
    expect(limited.headers['retry-after']).toBe('60');
    const other = await fromAddress('/v4/regions', '10.0.0.2');
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('199');
    // A forwarded-for header does not pick another counter.
    const forwarded = await t.app.inject({
      method: 'GET',
      url: '/v4/regions',
      remoteAddress: '10.0.0.1',
      headers: { 'x-forwarded-for': '10.9.9.9' },
    });
    expect(forwarded.statusCode).toBe(429);
  });

  it('getImages: has its own limit of 20 per minute', async () => {
    const statuses = await burst(20, () => t.get('/v4/images'));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const r = await t.get('/v4/images');
    expect(r.status).toBe(429);
    expect(r.body).toEqual(TOO_MANY);
    expect(r.headers['x-ratelimit-limit']).toBe('20');
  });

  it('getHealth: internal endpoints are neither counted nor limited', async () => {
    const r = await t.get('/_stratus/health');
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('rate limits off', () => {
  it('getEvents: STRATUS_RATE_LIMITS off means no 429 and no headers', async () => {
    const t = await buildTestApp({ rateLimits: false });
    try {
      for (let i = 0; i < 201; i++) expect((await t.get('/v4/account/events')).status).toBe(200);
      const r = await t.get('/v4/account/events');
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
      expect(r.headers['x-ratelimit-remaining']).toBeUndefined();
      expect(r.headers['x-ratelimit-reset']).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
