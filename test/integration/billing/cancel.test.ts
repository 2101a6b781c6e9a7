import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { account, addCard, advanceTo, CARD_DECLINED, createInstance, invoices } from './helpers.js';

describe('billing: POST /account/cancel', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const count = async (table: 'instances' | 'volumes' | 'users' | 'tokens' | 'nodebalancers') =>
    (
      await t.ctx.db.db
        .selectFrom(table)
        .select('id')
        .where('account_id', '=', t.admin.accountId)
        .execute()
    ).length;
  const openFacts = async () =>
    (
      await t.ctx.db.db
        .selectFrom('billing_facts')
        .select('id')
        .where('account_id', '=', t.admin.accountId)
        .where('to_ms', 'is', null)
        .execute()
    ).length;

  it('cancelAccount: restricted users are refused (403) and nothing changes', async () => {
    await addCard(t);
    const id = await createInstance(t);
    const u = await createTestUser(t, { global: { account_access: 'read_write' } });
    const r = await t.post('/v4/account/cancel', { comments: 'bye' }, { token: u.token });
    expect(r.status).toBe(403);
    expect((await t.get(`/v4/compute/instances/${id}`)).status).toBe(200);
    expect(await openFacts()).toBe(1);
  });

  it('cancelAccount: a declined charge is a 409 that cancels nothing and invoices nothing', async () => {
    await addCard(t, CARD_DECLINED);
    const id = await createInstance(t);
    await advanceTo(t, '2026-03-02T12:00:00Z');
    const r = await t.post('/v4/account/cancel', { comments: 'bye' });
    expect(r.status).toBe(409);
    expect(r.body.errors[0].reason).toMatch(/unable to charge.*declined/);
    expect(r.body.errors[0].field).toBeUndefined();
    expect((await t.get(`/v4/compute/instances/${id}`)).status).toBe(200);
    expect(await invoices(t)).toEqual([]);
    expect(await openFacts()).toBe(1);
    // 24 h × 0.0075 = 0.18 still accrues.
    expect(await account(t)).toMatchObject({ balance: 0, balance_uninvoiced: 0.18 });
  });

  it('cancelAccount: without a payment method an owed balance cannot be charged (409)', async () => {
    await createInstance(t);
    await advanceTo(t, '2026-03-01T14:00:00Z');
    expect((await t.post('/v4/account/cancel', {})).status).toBe(409);
    expect(await count('instances')).toBe(1);
  });

  it('cancelAccount: charges the balance, removes every entity, users and tokens, and stops billing', async () => {
    await addCard(t);
    const id = await createInstance(t);
    const vol = await t.post('/v4/volumes', { label: 'v1', region: 'us-east', size: 20 });
    expect(vol.status).toBe(200);
    await t.settle();
    const nb = await t.post('/v4/nodebalancers', { region: 'us-east' });
    expect(nb.status).toBe(200);
    // 03-01 12:00 → 03-02 12:00 (the created entities started within the first second):
    // nanode 24 h × 0.0075 = 0.18; volume 24 h × 0.00015 × 20 = 0.072 → 0.07;
    // NodeBalancer 24 h × 0.015 = 0.36: 0.61.
    await advanceTo(t, '2026-03-02T12:00:00Z');
    expect((await account(t)).balance_uninvoiced).toBe(0.61);

    const r = await t.post('/v4/account/cancel', { comments: 'moving on' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ survey_link: expect.stringMatching(/^https:\/\//) });

    // The token is gone: the account is closed.
    expect((await t.get('/v4/account')).status).toBe(401);
    expect((await t.get(`/v4/compute/instances/${id}`)).status).toBe(401);
    expect(await count('instances')).toBe(0);
    expect(await count('volumes')).toBe(0);
    expect(await count('nodebalancers')).toBe(0);
    expect(await count('users')).toBe(0);
    expect(await count('tokens')).toBe(0);
    expect(await openFacts()).toBe(0);

    // The final invoice and its payment are kept; the balance is settled.
    const inv = await t.ctx.db.db
      .selectFrom('invoices')
      .selectAll()
      .where('account_id', '=', t.admin.accountId)
      .execute();
    expect(inv).toHaveLength(1);
    expect(Number(inv[0]?.total_cents)).toBe(61);
    const pay = await t.ctx.db.db
      .selectFrom('payments')
      .selectAll()
      .where('account_id', '=', t.admin.accountId)
      .execute();
    expect(pay.map((p) => Number(p.usd_cents))).toEqual([61]);
    const acct = await t.ctx.db.db
      .selectFrom('accounts')
      .select('balance_cents')
      .where('id', '=', t.admin.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(acct.balance_cents)).toBe(0);

    // Billing has stopped: the 1st writes no second invoice for March and charges nothing.
    await advanceTo(t, '2026-05-01T00:00:00Z');
    const after = await t.ctx.db.db
      .selectFrom('invoices')
      .select('id')
      .where('account_id', '=', t.admin.accountId)
      .execute();
    expect(after).toHaveLength(1);
  });
});
