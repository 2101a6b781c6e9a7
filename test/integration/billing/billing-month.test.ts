import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { account, addCard, advanceTo, createInstance, invoices, items } from './helpers.js';

/**
 * A whole month through the job clock. The test clock starts at 2026-03-01T12:00:00Z; March has
 * 31 days, so the invoice of 2026-03 is written at 2026-04-01T00:00:00Z. Every amount below is
 * written out by hand: billed hours (partial hours rounded up) × hourly price, capped at the
 * monthly price, times the quantity; each item rounded to the cent.
 */
describe('billing: a month of usage', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await addCard(t);
  });
  afterEach(async () => {
    await t.close();
  });

  it('getInvoices: the 1st writes one invoice whose items, totals and payment match the hand-computed month', async () => {
    // 03-01 12:00 nanode (0.0075/h, $5/mo) in us-east.
    const id = await createInstance(t);
    // 03-02 00:00 a NodeBalancer ($0.015/h, $10/mo).
    await advanceTo(t, '2026-03-02T00:00:00Z');
    const nb = await t.post('/v4/nodebalancers', { region: 'us-east', label: 'nb-month' });
    expect(nb.status, JSON.stringify(nb.body)).toBe(200);
    // 03-05 00:00 a 20 GB volume ($0.00015/GB-h, $0.10/GB-mo).
    await advanceTo(t, '2026-03-05T00:00:00Z');
    const vol = await t.post('/v4/volumes', { label: 'vol-month', region: 'us-east', size: 20 });
    expect(vol.status, JSON.stringify(vol.body)).toBe(200);
    await t.settle();
    // 03-10 00:00 object storage ($0.0075/h, $5/mo) by its first bucket.
    await advanceTo(t, '2026-03-10T00:00:00Z');
    const bucket = await t.post('/v4/object-storage/buckets', {
      cluster: 'us-east-1',
      label: 'month-bucket',
    });
    expect(bucket.status, JSON.stringify(bucket.body)).toBe(200);
    // 03-10 11:59 resize to g6-standard-1 (0.018/h, $12/mo); the type changes when the resize
    // job ends, within the minute (fast timing), so the split falls between 11:59 and 12:00.
    await advanceTo(t, '2026-03-10T11:59:00Z');
    const rs = await t.post(`/v4/compute/instances/${id}/resize`, { type: 'g6-standard-1' });
    expect(rs.status, JSON.stringify(rs.body)).toBe(200);
    await t.settle();
    expect(t.clock.nowMs()).toBeLessThan(Date.parse('2026-03-10T12:00:00Z'));
    // 03-15 06:00 backups for g6-standard-1 ($0.004/h, $2.50/mo).
    await advanceTo(t, '2026-03-15T06:00:00Z');
    expect((await t.post(`/v4/compute/instances/${id}/backups/enable`)).status).toBe(200);
    // 03-20 00:00 the volume grows to 30 GB.
    await advanceTo(t, '2026-03-20T00:00:00Z');
    const grow = await t.post(`/v4/volumes/${vol.body.id}/resize`, { size: 30 });
    expect(grow.status, JSON.stringify(grow.body)).toBe(200);
    // 03-25 00:00 a second public IPv4 ($0.003/h, $2/mo).
    await advanceTo(t, '2026-03-25T00:00:00Z');
    const ip = await t.post(`/v4/compute/instances/${id}/ips`, { type: 'ipv4', public: true });
    expect(ip.status, JSON.stringify(ip.body)).toBe(200);

    // Hand-computed March:
    //   nanode   03-01 12:00 → 03-10 11:59:xx: 8 d 23 h 59 m → 216 h × 0.0075 = 1.62
    //   std-1    03-10 11:59:xx → 04-01 00:00: 21 d 12 h 0 m + → 517 h × 0.018 = 9.306 → 9.31
    //   backups  03-15 06:00 → 04-01: 16 d 18 h = 402 h × 0.004 = 1.608 → 1.61
    //   ipv4     03-25 00:00 → 04-01: 7 d = 168 h × 0.003 = 0.504 → 0.50
    //   vol 20GB 03-05 → 03-20: 15 d = 360 h × 0.00015 = 0.054 (< 0.10) × 20 = 1.08
    //   vol 30GB 03-20 → 04-01: 12 d = 288 h × 0.00015 = 0.0432 (< 0.10) × 30 = 1.296 → 1.30
    //   NB       03-02 → 04-01: 30 d = 720 h × 0.015 = 10.80, capped at the monthly 10.00
    //   objects  03-10 → 04-01: 22 d = 528 h × 0.0075 = 3.96
    const total = 1.62 + 9.31 + 1.61 + 0.5 + 1.08 + 1.3 + 10 + 3.96; // 29.38
    expect(Math.round(total * 100)).toBe(2938);

    // Before the 1st: nothing invoiced. Half an hour before the end of the month every period
    // that started on the hour has already started its last hour; only g6-standard-1 (from
    // 11:59:xx) is one hour short: 03-10 11:59:xx → 03-31 23:30 = 21 d 11 h 30+ m → 516 h
    // × 0.018 = 9.288 → 9.29 instead of 9.31, so the estimate is 29.38 − 0.02 = 29.36.
    await advanceTo(t, '2026-03-31T23:30:00Z');
    expect(await account(t)).toMatchObject({ balance: 0, balance_uninvoiced: 29.36 });
    expect(await invoices(t)).toEqual([]);

    await advanceTo(t, '2026-04-01T00:00:00Z');
    const [inv, ...more] = await invoices(t);
    expect(more).toEqual([]);
    expect(inv).toMatchObject({
      date: '2026-04-01T00:00:00',
      subtotal: 29.38,
      tax: 0,
      total: 29.38,
      tax_summary: [],
      billing_source: 'compute',
    });
    const got = await items(t, inv?.id as number);
    const row = (label: RegExp) => {
      const found = got.filter((i) => label.test(i.label));
      expect(found, String(label)).toHaveLength(1);
      return found[0];
    };
    expect(row(/^Nanode 1GB \(g6-nanode-1\)/)).toMatchObject({
      from: '2026-03-01T12:00:00',
      quantity: 216,
      unit_price: '0.0075',
      amount: 1.62,
      tax: 0,
      total: 1.62,
      region: 'us-east',
      type: 'hourly',
    });
    expect(row(/\(g6-standard-1\) - /)).toMatchObject({
      to: '2026-03-31T23:59:59',
      quantity: 517,
      unit_price: '0.018',
      amount: 9.31,
    });
    expect(row(/^Backup Service/)).toMatchObject({
      from: '2026-03-15T06:00:00',
      quantity: 402,
      unit_price: '0.004',
      amount: 1.61,
    });
    expect(row(/^Additional IPv4/)).toMatchObject({
      from: '2026-03-25T00:00:00',
      quantity: 168,
      amount: 0.5,
    });
    expect(row(/ - 20 GB$/)).toMatchObject({
      from: '2026-03-05T00:00:00',
      to: '2026-03-19T23:59:59',
      quantity: 360,
      unit_price: '0.003',
      amount: 1.08,
    });
    expect(row(/ - 30 GB$/)).toMatchObject({
      from: '2026-03-20T00:00:00',
      quantity: 288,
      unit_price: '0.0045',
      amount: 1.3,
    });
    expect(row(/^NodeBalancer - nb-month/)).toMatchObject({
      from: '2026-03-02T00:00:00',
      quantity: 720,
      unit_price: '0.015',
      amount: 10,
    });
    expect(row(/^Object Storage$/)).toMatchObject({
      from: '2026-03-10T00:00:00',
      quantity: 528,
      amount: 3.96,
      region: null,
    });
    expect(got).toHaveLength(8);
    expect(got.reduce((n, i) => n + Math.round(i.amount * 100), 0)).toBe(2938);

    // The default card was charged the total: one payment, the balance back to 0.
    const pays = (await t.get('/v4/account/payments')).body.data;
    expect(pays).toMatchObject([{ date: '2026-04-01T00:00:00', usd: 29.38 }]);
    expect(await account(t)).toMatchObject({ balance: 0, balance_uninvoiced: 0 });
    const ev = await t.get('/v4/account/events', { filter: { action: 'payment_submitted' } });
    expect(ev.body.data).toHaveLength(1);

    // April goes on: half an hour in, each open period has accrued one hour, rounded per item:
    // std-1 1.8¢→2, backups 0.4¢→0, ipv4 0.3¢→0, volume 30×0.015¢=0.45¢→0, NB 1.5¢→2,
    // objects 0.75¢→1: $0.05.
    await advanceTo(t, '2026-04-01T00:30:00Z');
    expect(await account(t)).toMatchObject({ balance: 0, balance_uninvoiced: 0.05 });
  });
});
