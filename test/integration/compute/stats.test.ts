import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';
const HOUR = 3_600_000;
const STEP = 300_000;
type Pt = [number, number];

describe('instance statistics and transfer', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  async function running(): Promise<any> {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      private_ip: true,
    });
    await t.settle();
    return r.body;
  }
  const stats = (id: number, suffix = '') => t.get(`/v4/compute/instances/${id}/stats${suffix}`);

  it('getComputeStats: the series at the top level (reference) and under data (clients), 5-minute points of the past 24 hours', async () => {
    const inst = await running();
    t.clock.advance(6 * HOUR);
    const r = await stats(inst.id);
    expect(r.status).toBe(200);
    expect(r.body.title).toContain(inst.label);
    expect(Object.keys(r.body).sort()).toEqual(['cpu', 'data', 'io', 'netv4', 'netv6', 'title']);
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(['cpu', 'io', 'netv4', 'netv6']);
    for (const k of ['cpu', 'io', 'netv4', 'netv6']) expect(r.body[k]).toEqual(d[k]);
    expect(Object.keys(d.io).sort()).toEqual(['io', 'swap']);
    expect(Object.keys(d.netv4).sort()).toEqual(['in', 'out', 'private_in', 'private_out']);
    expect(Object.keys(d.netv6).sort()).toEqual(['in', 'out', 'private_in', 'private_out']);
    // From the instance's creation to the last complete 5 minutes.
    expect(d.cpu).toHaveLength(72);
    const now = t.clock.nowMs();
    for (const [i, [ts]] of d.cpu.entries()) {
      expect(ts % STEP).toBe(0);
      expect(ts + STEP).toBeLessThanOrEqual(now);
      if (i > 0) expect(ts - d.cpu[i - 1][0]).toBe(STEP);
    }
    const busy = d.cpu.slice(1).map((p: Pt) => p[1]);
    expect(busy.every((v: number) => v > 0 && v <= 100)).toBe(true);
    expect(d.netv4.out.slice(1).every((p: Pt) => p[1] > 0)).toBe(true);
    expect(d.netv4.private_in.slice(1).every((p: Pt) => p[1] > 0)).toBe(true);
  });

  it('getComputeStats: the same instance and time give the same numbers; earlier points never change', async () => {
    const inst = await running();
    t.clock.advance(2 * HOUR);
    const a = await stats(inst.id);
    const b = await stats(inst.id);
    expect(b.body).toEqual(a.body);
    t.clock.advance(HOUR);
    const later = await stats(inst.id);
    expect(later.body.data.cpu.slice(0, a.body.data.cpu.length)).toEqual(a.body.data.cpu);
  });

  it('getComputeStats: an instance shows no CPU or traffic while it is not running', async () => {
    const inst = await running();
    t.clock.advance(HOUR);
    await t.post(`/v4/compute/instances/${inst.id}/shutdown`);
    await t.settle();
    const offAt = t.clock.nowMs();
    t.clock.advance(3 * HOUR);
    const d = (await stats(inst.id)).body.data;
    const after = d.cpu.filter(([ts]: Pt) => ts >= offAt);
    expect(after.length).toBeGreaterThan(30);
    expect(after.every(([, v]: Pt) => v === 0)).toBe(true);
    expect(d.netv4.in.filter(([ts]: Pt) => ts >= offAt).every(([, v]: Pt) => v === 0)).toBe(true);
    expect(d.cpu.filter(([ts]: Pt) => ts < offAt - STEP).some(([, v]: Pt) => v > 0)).toBe(true);
  });

  it('getComputeStats: a never-booted instance has only zeros', async () => {
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    await t.settle();
    t.clock.advance(HOUR);
    const d = (await stats(r.body.id)).body.data;
    expect(d.cpu.length).toBeGreaterThan(10);
    expect(d.cpu.every(([, v]: Pt) => v === 0)).toBe(true);
  });

  it('getComputeStats: the stats rate-limit class (50 a minute)', async () => {
    const rl = await buildTestApp({ rateLimits: true });
    try {
      const inst = (
        await rl.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' })
      ).body;
      expect(
        (await rl.get(`/v4/compute/instances/${inst.id}/stats`)).headers['x-ratelimit-limit'],
      ).toBe('50');
      expect(
        (await rl.get(`/v4/compute/instances/${inst.id}/stats/2026/3`)).headers[
          'x-ratelimit-limit'
        ],
      ).toBe('50');
    } finally {
      await rl.close();
    }
  });

  it('getComputeStatsByYearMonth: the current month is the past 30 days; a month before the instance is empty', async () => {
    const inst = await running();
    t.clock.advance(2 * HOUR);
    const cur = await stats(inst.id, '/2026/3');
    expect(cur.status).toBe(200);
    const day = (await stats(inst.id)).body.data.cpu;
    expect(cur.body.data.cpu).toEqual(day);
    const past = await stats(inst.id, '/2026/2');
    expect(past.status).toBe(200);
    expect(past.body.data.cpu).toEqual([]);
    expect(past.body.cpu).toEqual([]);
    expect(past.body.netv4).toEqual({ in: [], out: [], private_in: [], private_out: [] });
  });

  it('getComputeStatsByYearMonth: a month out of 1..12, a year out of 2000..2037 or a future month is 400 naming the field', async () => {
    const inst = await running();
    const field = async (suffix: string) => {
      const r = await stats(inst.id, suffix);
      expect(r.status, suffix).toBe(400);
      return r.body.errors.map((e: any) => e.field);
    };
    expect(await field('/2026/13')).toEqual(['month']);
    expect(await field('/2026/0')).toEqual(['month']);
    expect(await field('/2026/4')).toEqual(['month']);
    expect(await field('/2027/1')).toEqual(['year']);
    expect(await field('/1999/5')).toEqual(['year']);
    expect((await stats(inst.id, '/2026/x')).status).toBe(404);
  });

  it('getComputeTransfer: bytes sent this month, quota prorated from the type, nothing billable', async () => {
    const inst = await running();
    t.clock.advance(6 * HOUR);
    const r = await t.get(`/v4/compute/instances/${inst.id}/transfer`);
    expect(r.status).toBe(200);
    expect(r.body.used).toBeGreaterThan(0);
    // Created half a day into a 31-day month: 1000 GB * 30.5 / 31.
    expect(r.body.quota).toBe(984);
    expect(r.body.billable).toBe(0);
    const month = await t.get(`/v4/compute/instances/${inst.id}/transfer/2026/3`);
    expect(month.body.bytes_out).toBe(r.body.used);
    expect(month.body.bytes_in).toBeGreaterThan(0);
    expect(month.body.bytes_total).toBe(month.body.bytes_in + month.body.bytes_out);
  });

  it('getComputeTransferByYearMonth: past months before the instance are zero; bad or future months are 400', async () => {
    const inst = await running();
    const past = await t.get(`/v4/compute/instances/${inst.id}/transfer/2025/12`);
    expect(past.body).toEqual({ bytes_in: 0, bytes_out: 0, bytes_total: 0 });
    const future = await t.get(`/v4/compute/instances/${inst.id}/transfer/2026/5`);
    expect(future.status).toBe(400);
    expect(future.body.errors[0].field).toBe('month');
    const early = await t.get(`/v4/compute/instances/${inst.id}/transfer/1999/1`);
    expect(early.body.errors[0].field).toBe('year');
  });

  it('getComputeFirewalls: an empty page; 404 for an unknown or hidden instance', async () => {
    const inst = await running();
    const r = await t.get(`/v4/compute/instances/${inst.id}/firewalls`);
    expect(r.body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
    expect((await t.get('/v4/compute/instances/999999/firewalls')).status).toBe(404);
    const u = await createTestUser(t);
    expect(
      (await t.get(`/v4/compute/instances/${inst.id}/firewalls`, { token: u.token })).status,
    ).toBe(404);
  });

  it('getComputeNodeBalancers: an empty page; 404 for an unknown or hidden instance', async () => {
    const inst = await running();
    const r = await t.get(`/v4/compute/instances/${inst.id}/nodebalancers`);
    expect(r.body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
    expect((await t.get('/v4/compute/instances/999999/nodebalancers')).status).toBe(404);
    const u = await createTestUser(t);
    expect(
      (await t.get(`/v4/compute/instances/${inst.id}/nodebalancers`, { token: u.token })).status,
    ).toBe(404);
    for (const path of ['stats', 'transfer']) {
      expect(
        (await t.get(`/v4/compute/instances/${inst.id}/${path}`, { token: u.token })).status,
      ).toBe(404);
    }
  });
});
