import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  account,
  addCard,
  advanceTo,
  CARD_DECLINED,
  CARD_ERROR,
  CARD_OK,
  createInstance,
  invoices,
} from './helpers.js';

describe('billing: payments', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const setBalance = (cents: number) =>
    t.ctx.db.db
      .updateTable('accounts')
      .set({ balance_cents: cents })
      .where('id', '=', t.admin.accountId)
      .execute();
  const pay = (body: unknown, token?: string) =>
    t.post('/v4/account/payments', body, token ? { token } : {});
  const methods = async () =>
    (await t.get('/v4/account/payment-methods')).body.data as {
      id: number;
      is_default: boolean;
      data: { last_four: string };
    }[];
  const addMethod = (number: string, isDefault: boolean) =>
    t.post('/v4/account/payment-methods', {
      type: 'credit_card',
      is_default: isDefault,
      data: { card_number: number, cvv: '123', expiry_month: 12, expiry_year: 2030 },
    });

  it('invoicing: a declined default card leaves the invoice owed; createPayment with another card pays it', async () => {
    await addCard(t, CARD_DECLINED);
    await createInstance(t);
    await advanceTo(t, '2026-04-01T00:00:00Z');
    // 03-01 12:00 → 04-01: 732 h × 0.0075 = 5.49, capped at the monthly 5.00.
    const [inv] = await invoices(t);
    expect(inv?.total).toBe(5);
    expect((await t.get('/v4/account/payments')).body.data).toEqual([]);
    expect((await account(t)).balance).toBe(5);

    expect((await addMethod(CARD_OK, false)).status).toBe(200);
    const ok = (await methods()).find((m) => m.data.last_four === '1111');
    const r = await pay({ usd: '$5.00', payment_method_id: ok?.id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ usd: 5, date: '2026-04-01T00:00:00' });
    expect((await account(t)).balance).toBe(0);
    expect((await t.get(`/v4/account/payments/${r.body.id}`)).body).toEqual(r.body);
    expect((await t.get('/v4/account/payments')).body).toMatchObject({
      data: [r.body],
      page: 1,
      pages: 1,
      results: 1,
    });
    const ev = await t.get('/v4/account/events', { filter: { action: 'payment_submitted' } });
    expect(ev.body.data).toMatchObject([{ status: 'notification', entity: { type: 'account' } }]);
  });

  it('createPayment: a declined card is a 400 with the reason and changes nothing', async () => {
    await addCard(t, CARD_DECLINED);
    await setBalance(2000);
    const r = await pay({ usd: '20.00' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/declined/);
    expect((await account(t)).balance).toBe(20);
    expect((await t.get('/v4/account/payments')).body.data).toEqual([]);
    const ev = await t.get('/v4/account/events', { filter: { action: 'payment_submitted' } });
    expect(ev.body.data).toEqual([]);
  });

  it('createPayment: a processor failure is a 400 of its own and changes nothing', async () => {
    await addCard(t, CARD_ERROR);
    await setBalance(2000);
    const r = await pay({ usd: '20.00' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/processor/);
    expect((await account(t)).balance).toBe(20);
  });

  it('createPayment: no payment method, or one not of the account, is refused', async () => {
    await setBalance(2000);
    const none = await pay({ usd: '20.00' });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].reason).toMatch(/no payment method/);
    await addCard(t);
    const other = await pay({ usd: '20.00', payment_method_id: 999999 });
    expect(other.status).toBe(400);
    expect(other.body.errors[0].field).toBe('payment_method_id');
    expect((await account(t)).balance).toBe(20);
  });

  it('createPayment: usd must be dollars with two decimals, optionally after $', async () => {
    await addCard(t);
    await setBalance(10_000);
    for (const usd of ['12', '12.5', '1,000.00', '-5.00', '$', 'abc']) {
      const r = await pay({ usd });
      expect(r.status, usd).toBe(400);
      expect(r.body.errors[0].field, usd).toBe('usd');
    }
    expect((await pay({ usd: '$12.34' })).body.usd).toBe(12.34);
    expect((await pay({ usd: '12.34', cvv: '12' })).body.errors[0].field).toBe('cvv');
  });

  it('createPayment: at least $5.00 or the balance, whichever is lower', async () => {
    await addCard(t);
    await setBalance(10_000);
    expect((await pay({ usd: '4.99' })).body.errors[0]).toMatchObject({
      field: 'usd',
      reason: 'The payment must be at least $5.00.',
    });
    expect((await pay({ usd: '5.00' })).status).toBe(200);
    await setBalance(300);
    expect((await pay({ usd: '2.99' })).status).toBe(400);
    expect((await pay({ usd: '3.00' })).status).toBe(200);
    // No balance: any amount from a cent (a credit), never nothing.
    expect((await account(t)).balance).toBe(0);
    expect((await pay({ usd: '0.00' })).status).toBe(400);
    expect((await pay({ usd: '0.01' })).status).toBe(200);
    expect((await account(t)).balance).toBe(-0.01);
  });

  it('createPayment: at most $2000.00 or the balance up to $50000.00, whichever is greater', async () => {
    await addCard(t);
    await setBalance(1000);
    expect((await pay({ usd: '2000.01' })).body.errors[0]).toMatchObject({
      field: 'usd',
      reason: 'The payment must be at most $2000.00.',
    });
    await setBalance(300_000);
    expect((await pay({ usd: '3000.01' })).status).toBe(400);
    expect((await pay({ usd: '3000.00' })).status).toBe(200);
    await setBalance(6_000_000);
    expect((await pay({ usd: '50000.01' })).status).toBe(400);
    expect((await pay({ usd: '50000.00' })).status).toBe(200);
    expect((await account(t)).balance).toBe(10_000);
  });

  it('getPayments, createPayment: restricted users need account_access (read_only reads, read_write pays)', async () => {
    await addCard(t);
    await setBalance(2000);
    const none = await createTestUser(t, {});
    const ro = await createTestUser(t, { global: { account_access: 'read_only' } });
    const rw = await createTestUser(t, { global: { account_access: 'read_write' } });
    expect((await t.get('/v4/account/payments', { token: none.token })).status).toBe(403);
    expect((await t.get('/v4/account/invoices', { token: none.token })).status).toBe(403);
    expect((await t.get('/v4/account/payments', { token: ro.token })).status).toBe(200);
    expect((await pay({ usd: '20.00' }, ro.token)).status).toBe(403);
    expect((await pay({ usd: '20.00' }, rw.token)).status).toBe(200);
  });

  it("getPayment, getInvoice: another account's payment or invoice is not found", async () => {
    await addCard(t);
    await createInstance(t);
    await advanceTo(t, '2026-04-01T00:00:00Z');
    const [inv] = await invoices(t);
    const [p] = (await t.get('/v4/account/payments')).body.data;
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other',
    });
    const o = { token: other.token };
    expect((await t.get(`/v4/account/payments/${p.id}`, o)).status).toBe(404);
    expect((await t.get(`/v4/account/invoices/${inv?.id}`, o)).status).toBe(404);
    expect((await t.get(`/v4/account/invoices/${inv?.id}/items`, o)).status).toBe(404);
    expect((await t.get('/v4/account/invoices', o)).body.data).toEqual([]);
    expect((await t.get('/v4/account/invoices/999999')).status).toBe(404);
  });
});
