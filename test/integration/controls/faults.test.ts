import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createVolume, op, operatorToken, secondAccount } from './helpers.js';

const VOLUME = { label: 'faulty', region: 'us-east', size: 20 };

describe('emulator controls: faults', () => {
  let t: TestApp;
  let o: ReturnType<typeof op>;
  beforeEach(async () => {
    t = await buildTestApp();
    o = op(t, await operatorToken(t));
  });
  afterEach(async () => {
    await t.close();
  });

  const rules = async (r: unknown[]) => {
    const res = await o.put('/_stratus/faults', { rules: r });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it('putFaults: a counted 429 rule answers with Retry-After that many times, then requests pass; nothing is created meanwhile', async () => {
    const set = await rules([
      {
        id: 'slow-down',
        method: 'POST',
        path: '/v4/volumes',
        response: 'rate_limit',
        retry_after: 7,
        count: 2,
      },
    ]);
    expect(set.rules[0]).toMatchObject({ id: 'slow-down', remaining: 2 });
    for (let i = 0; i < 2; i++) {
      const r = await t.post('/v4/volumes', VOLUME);
      expect(r.status).toBe(429);
      expect(r.headers['retry-after']).toBe('7');
      expect(r.body).toEqual({ errors: [{ reason: 'Too many requests' }] });
    }
    expect((await t.get('/v4/volumes')).body.results).toBe(0);
    expect((await t.post('/v4/volumes', VOLUME)).status).toBe(200);
    expect((await o.get('/_stratus/faults')).body.rules[0].remaining).toBe(0);
  });

  it('putFaults: busy, 5xx and maintenance answers in the error format; GETs elsewhere pass', async () => {
    const id = await createVolume(t, 'v');
    await rules([
      { path: '/volumes/*/resize', response: 'busy' },
      { operationId: 'updateVolume', response: 'error', status: 502, message: 'Bad gateway' },
      { method: 'DELETE', path: '/v4/volumes/**', response: 'maintenance' },
      { operationId: 'getVolumes', response: 'error' },
    ]);
    const busy = await t.post(`/v4/volumes/${id}/resize`, { size: 30 });
    expect(busy.status).toBe(400);
    expect(busy.body).toEqual({ errors: [{ reason: 'Volume busy.' }] });
    const bad = await t.put(`/v4/volumes/${id}`, { label: 'x' });
    expect(bad.status).toBe(502);
    expect(bad.body).toEqual({ errors: [{ reason: 'Bad gateway' }] });
    const m = await t.del(`/v4/volumes/${id}`);
    expect(m.status).toBe(503);
    expect(m.headers['x-maintenance-mode']).toBe('all,Currently in maintenance mode.');
    const e = await t.get('/v4/volumes');
    expect(e.status).toBe(500);
    expect(e.body.errors[0].reason).toMatch(/internal error/);
    const g = await t.get(`/v4/volumes/${id}`);
    expect(g.status).toBe(200);
    expect(g.body.size).toBe(20);
    expect(g.body.label).toBe('v');
    // v4beta is the same operation.
    expect((await t.post(`/v4beta/volumes/${id}/resize`, { size: 30 })).status).toBe(400);
    // The controls themselves are never faulted.
    expect((await o.get('/_stratus/faults')).status).toBe(200);
  });

  it('putFaults: a rule for one account leaves the others alone; probability 0 never fires', async () => {
    const other = await secondAccount(t);
    const euuid = (await t.get('/v4/account', { token: other.token })).body.euuid;
    await rules([
      { method: 'GET', path: '/profile', response: 'error', probability: 0 },
      { account: euuid, response: 'maintenance' },
    ]);
    expect((await t.get('/v4/profile')).status).toBe(200);
    expect((await t.get('/v4/profile', { token: other.token })).status).toBe(503);
  });

  it('putFaults: latency delays the answer, which is otherwise the real one', async () => {
    await rules([{ operationId: 'getProfile', response: 'latency', latency_ms: 200 }]);
    const start = performance.now();
    const r = await t.get('/v4/profile');
    expect(r.status).toBe(200);
    expect(performance.now() - start).toBeGreaterThanOrEqual(190);
  });

  it('putFaults: a probability rule fires for some requests and not others', async () => {
    await rules([{ operationId: 'getProfile', response: 'error', probability: 0.5 }]);
    const codes = new Set<number>();
    for (let i = 0; i < 60; i++) codes.add((await t.get('/v4/profile')).status);
    expect([...codes].sort()).toEqual([200, 500]);
  });

  it('putFaults: bad rules are a 400 naming the field; an empty list clears them', async () => {
    const bad = await o.put('/_stratus/faults', { rules: [{ response: 'explode' }] });
    expect(bad.status).toBe(400);
    const dup = await o.put('/_stratus/faults', {
      rules: [
        { id: 'a', response: 'busy' },
        { id: 'a', response: 'busy' },
      ],
    });
    expect(dup.status).toBe(400);
    expect(dup.body.errors[0].field).toBe('rules[1].id');
    await rules([{ response: 'busy' }]);
    expect((await t.get('/v4/profile')).status).toBe(400);
    expect((await rules([])).rules).toEqual([]);
    expect((await t.get('/v4/profile')).status).toBe(200);
  });
});
