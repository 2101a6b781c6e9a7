import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cardType, luhnValid } from '../../../src/modules/billing/payment-methods.rules.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const AMEX = '378282246310005';
const DISCOVER = '6011111111111117';
// The test clock starts on 2026-03-01.
const card = (over: Record<string, unknown> = {}) => ({
  card_number: VISA,
  cvv: '123',
  expiry_month: 12,
  expiry_year: 2030,
  ...over,
});
const method = (over: Record<string, unknown> = {}, isDefault = false) => ({
  type: 'credit_card',
  is_default: isDefault,
  data: card(over),
});

describe('payment methods', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    expect((await t.put('/v4/account', { zip: '19106' })).status).toBe(200);
  });
  afterEach(async () => {
    await t.close();
  });

  const add = (body: unknown, token?: string) =>
    t.post('/v4/account/payment-methods', body, token ? { token } : {});
  const list = async () =>
    (await t.get('/v4/account/payment-methods')).body.data as {
      id: number;
      is_default: boolean;
      data: { last_four: string; card_type: string; expiry: string };
    }[];

  it('luhnValid, cardType: the check digit and the network of test numbers', () => {
    for (const n of [VISA, MASTERCARD, AMEX, DISCOVER]) expect(luhnValid(n), n).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect([VISA, MASTERCARD, AMEX, DISCOVER].map(cardType)).toEqual([
      'Visa',
      'MasterCard',
      'American Express',
      'Discover',
    ]);
  });

  it('createPaymentMethod: answers {}, lists the card with its type, last four and expiry only', async () => {
    const r = await add(method({ card_number: MASTERCARD, expiry_month: 6 }, true));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({});
    const [m] = await list();
    expect(m).toMatchObject({
      type: 'credit_card',
      is_default: true,
      data: { card_type: 'MasterCard', last_four: '4444', expiry: '06/2030' },
    });
    expect((await t.get(`/v4/account/payment-methods/${m?.id}`)).body).toEqual(m);
    // The number and the CVV are never stored.
    const rows = await t.ctx.db.db.selectFrom('payment_methods').selectAll().execute();
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(MASTERCARD);
    expect(stored).not.toContain('555555555555');
    expect(stored).not.toContain('"123"');
    const ev = await t.get('/v4/account/events', { filter: { action: 'payment_method_add' } });
    expect(ev.body.results).toBe(1);
    expect(ev.body.data[0].entity.type).toBe('account');
  });

  it('createPaymentMethod: every card rule, each failing field named at once', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ card_number: '4111111111111' }, 'data.card_number'], // 13 digits
      [{ card_number: '4'.repeat(25) }, 'data.card_number'],
      [{ card_number: '4111 1111 1111 1111' }, 'data.card_number'],
      [{ card_number: '4111-1111-1111-1111' }, 'data.card_number'],
      [{ card_number: '4111111111111112' }, 'data.card_number'], // Luhn
      [{ cvv: '12' }, 'data.cvv'],
      [{ cvv: '12345' }, 'data.cvv'],
      [{ cvv: '12a' }, 'data.cvv'],
      [{ expiry_month: 0 }, 'data.expiry_month'],
      [{ expiry_month: 13 }, 'data.expiry_month'],
      [{ expiry_year: 203 }, 'data.expiry_year'],
      [{ expiry_year: 20300 }, 'data.expiry_year'],
      [{ expiry_year: 2026, expiry_month: 2 }, 'data.expiry_year'], // expired last month
      [{ expiry_year: 2025, expiry_month: 12 }, 'data.expiry_year'],
    ];
    for (const [over, field] of cases) {
      const r = await add(method(over));
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(
        r.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(over),
      ).toEqual([field]);
    }
    const all = await add(
      method({ card_number: '123', cvv: 'x', expiry_month: 14, expiry_year: 12 }),
    );
    expect(all.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'data.card_number',
      'data.cvv',
      'data.expiry_month',
      'data.expiry_year',
    ]);
    const missing = await add({ type: 'credit_card', is_default: true, data: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toContain(
      'data.card_number',
    );
    // This month is still valid; nothing above was stored.
    expect(await list()).toEqual([]);
    expect((await add(method({ expiry_year: 2026, expiry_month: 3 }))).status).toBe(200);
  });

  it('createPaymentMethod: needs a valid zip on the account first', async () => {
    await t.put('/v4/account', { zip: '' });
    const r = await add(method());
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/zip/);
    expect(await list()).toEqual([]);
    await t.put('/v4/account', { zip: 'SW1A-1AA' });
    expect((await add(method())).status).toBe(200);
  });

  it('createPaymentMethod: a new default takes the default from the others; the first one is the default', async () => {
    await add(method({ card_number: VISA }, false));
    expect((await list()).map((m) => m.is_default)).toEqual([true]);
    await add(method({ card_number: MASTERCARD }, false));
    expect((await list()).map((m) => m.is_default)).toEqual([true, false]);
    await add(method({ card_number: AMEX }, true));
    expect((await list()).map((m) => m.is_default)).toEqual([false, false, true]);
    const account = (await t.get('/v4/account')).body;
    expect(account.credit_card).toEqual({ last_four: '0005', expiry: '12/2030' });
  });

  it('makePaymentMethodDefault: moves the default; deletePaymentMethod: refused for the default, deactivates another', async () => {
    await add(method({ card_number: VISA }, true));
    await add(method({ card_number: DISCOVER }, false));
    const [visa, discover] = await list();
    const refused = await t.del(`/v4/account/payment-methods/${visa?.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/default/);
    expect((await t.post(`/v4/account/payment-methods/${discover?.id}/make-default`)).status).toBe(
      200,
    );
    expect((await list()).map((m) => [m.data.last_four, m.is_default])).toEqual([
      ['1111', false],
      ['1117', true],
    ]);
    expect((await t.del(`/v4/account/payment-methods/${visa?.id}`)).status).toBe(200);
    expect((await list()).map((m) => m.data.last_four)).toEqual(['1117']);
    expect((await t.get(`/v4/account/payment-methods/${visa?.id}`)).status).toBe(404);
    expect((await t.get('/v4/account')).body.credit_card.last_four).toBe('1117');
  });

  it('createPaymentMethod: at most 6 active methods; a deleted one frees a place', async () => {
    for (let i = 0; i < 6; i++) expect((await add(method())).status).toBe(200);
    const seventh = await add(method());
    expect(seventh.status).toBe(400);
    expect(seventh.body.errors[0].reason).toMatch(/6/);
    const extra = (await list()).find((m) => !m.is_default);
    expect((await t.del(`/v4/account/payment-methods/${extra?.id}`)).status).toBe(200);
    expect((await add(method())).status).toBe(200);
  });

  it('createPaymentMethod: 64 concurrent adds never leave more than 6 active methods, nor more than one default', async () => {
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, i) => add(method({}, i % 2 === 0))),
    );
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 400);
    expect(ok).toHaveLength(6);
    expect(refused).toHaveLength(58);
    for (const r of refused) expect(r.body.errors[0].reason).toMatch(/6/);
    const methods = await list();
    expect(methods).toHaveLength(6);
    expect(methods.filter((m) => m.is_default)).toHaveLength(1);
    const events = await t.get('/v4/account/events', { filter: { action: 'payment_method_add' } });
    expect(events.body.results).toBe(6);
  });

  it('createPaymentMethod: at most 60 added in 24 hours, deleted ones included', async () => {
    await add(method({}, true));
    for (let i = 1; i < 60; i++) {
      expect((await add(method())).status, `addition ${i + 1}`).toBe(200);
      const extra = (await list()).find((m) => !m.is_default);
      await t.del(`/v4/account/payment-methods/${extra?.id}`);
    }
    const over = await add(method());
    expect(over.status).toBe(400);
    expect(over.body.errors[0].reason).toMatch(/60/);
    t.clock.advance(24 * 3_600_000 + 1000);
    expect((await add(method())).status).toBe(200);
  });

  it('createCreditCard (deprecated): adds the card as the default; fields are named without a prefix', async () => {
    await add(method({ card_number: VISA }, true));
    const r = await t.post('/v4/account/credit-card', card({ card_number: AMEX }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await list()).map((m) => [m.data.card_type, m.is_default])).toEqual([
      ['Visa', false],
      ['American Express', true],
    ]);
    const bad = await t.post('/v4/account/credit-card', card({ cvv: '1' }));
    expect(bad.body.errors).toEqual([{ field: 'cvv', reason: 'cvv must be 3 or 4 digits' }]);
    const ev = await t.get('/v4/account/events', { filter: { action: 'credit_card_updated' } });
    expect(ev.body.results).toBe(1);
  });

  it('payment methods: restricted users need account_access; read_only reads, read_write changes', async () => {
    await add(method({}, true));
    const [m] = await list();
    const none = await createTestUser(t);
    expect((await t.get('/v4/account/payment-methods', { token: none.token })).status).toBe(403);
    const ro = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect((await t.get('/v4/account/payment-methods', { token: ro.token })).body.results).toBe(1);
    expect((await add(method(), ro.token)).status).toBe(403);
    expect(
      (
        await t.post(`/v4/account/payment-methods/${m?.id}/make-default`, undefined, {
          token: ro.token,
        })
      ).status,
    ).toBe(403);
    const rw = await createTestUser(t, { global: { account_access: 'read_write' } });
    expect((await add(method(), rw.token)).status).toBe(200);
    expect((await list()).length).toBe(2);
  });

  it('deletePaymentMethod: the spec declares account:read_only, so such a token of an unrestricted user deletes', async () => {
    await add(method({}, true));
    await add(method());
    const extra = (await list()).find((m) => !m.is_default);
    const u = await createTestUser(t, { restricted: false, scopes: 'account:read_only' });
    expect(
      (await t.del(`/v4/account/payment-methods/${extra?.id}`, { token: u.token })).status,
    ).toBe(200);
  });

  it('getPaymentMethod: a method of another account is 404 and cannot be deleted or made default', async () => {
    await add(method({}, true));
    await add(method());
    const [, second] = await list();
    const other = await createTestUser(t, { accountId: await otherAccount(t), restricted: false });
    for (const r of [
      await t.get(`/v4/account/payment-methods/${second?.id}`, { token: other.token }),
      await t.del(`/v4/account/payment-methods/${second?.id}`, { token: other.token }),
      await t.post(`/v4/account/payment-methods/${second?.id}/make-default`, undefined, {
        token: other.token,
      }),
    ]) {
      expect(r.status).toBe(404);
    }
    expect((await list()).length).toBe(2);
  });
});

async function otherAccount(t: TestApp): Promise<number> {
  const { bootstrapAccount } = await import('../../../src/modules/identity/bootstrap.js');
  const r = await bootstrapAccount(t.ctx.db, t.clock, {
    email: 'other@example.com',
    username: `other${Math.floor(Math.random() * 1e6)}`,
  });
  return r.accountId;
}
