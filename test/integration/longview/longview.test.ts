import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sealer } from '../../../src/platform/sealer.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken, secondAccount } from '../controls/helpers.js';

const KEY = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{16}$/;
const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field ?? null).sort();

async function client(t: TestApp, label?: string | null, token?: string) {
  const r = await t.post(
    '/v4/longview/clients',
    label === undefined ? {} : { label },
    token ? { token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: number; label: string; api_key: string; install_code: string };
}

async function lvEvents(t: TestApp, action: string) {
  const r = await t.get('/v4/account/events', { filter: { action } });
  return r.body.data as { entity: { type: string; id: number; label: string }; status: string }[];
}

describe('longview', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createLongviewClient: keys in the real format, apps as the recorded integers, event longviewclient_create', async () => {
    const r = await t.post('/v4/longview/clients', { label: 'web_1' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'web_1',
      apps: { apache: 0, nginx: 0, mysql: 0 },
      created: '2026-03-01T12:00:00',
      updated: '2026-03-01T12:00:00',
    });
    expect(r.body.api_key).toMatch(KEY);
    expect(r.body.install_code).toMatch(KEY);
    expect(r.body.api_key).not.toBe(r.body.install_code);
    const view = await t.get(`/v4/longview/clients/${r.body.id}`);
    expect(view.body.apps).toEqual({ apache: false, nginx: false, mysql: false });
    expect(view.body.api_key).toBe(r.body.api_key);
    const [ev] = await lvEvents(t, 'longviewclient_create');
    expect(ev).toMatchObject({
      status: 'notification',
      entity: { type: 'longview', id: r.body.id, label: 'web_1' },
    });
    // Stored sealed: neither key is in the row in clear.
    const row = await t.ctx.db.db
      .selectFrom('longview_clients')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(r.body.api_key);
    const sealer = new Sealer(t.ctx.db, t.ctx.config.encryptionKey);
    expect(await sealer.open(row.api_key_sealed)).toBe(r.body.api_key);
  });

  it('createLongviewClient: without a label (or null) it is longview<id>; labels are checked and unique', async () => {
    const a = await client(t);
    expect(a.label).toBe(`longview${a.id}`);
    const b = await client(t, null);
    expect(b.label).toBe(`longview${b.id}`);
    const bad = await t.post('/v4/longview/clients', { label: 'no spaces!' });
    expect(fieldsOf(bad)).toEqual(['label']);
    const short = await t.post('/v4/longview/clients', { label: 'ab' });
    expect(fieldsOf(short)).toEqual(['label']);
    await client(t, 'same');
    const dup = await t.post('/v4/longview/clients', { label: 'same' });
    expect(dup.body.errors).toEqual([{ field: 'label', reason: 'Label must be unique.' }]);
    // Unique per account only.
    const other = await secondAccount(t);
    await client(t, 'same', other.token);
  });

  it('updateLongviewClient and deleteLongviewClient: label change and removal, with their events', async () => {
    const c = await client(t, 'first');
    t.clock.advance(1000);
    const u = await t.put(`/v4/longview/clients/${c.id}`, { label: 'second' });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ label: 'second', updated: '2026-03-01T12:00:01' });
    expect(u.body.apps).toEqual({ apache: false, nginx: false, mysql: false });
    expect((await t.del(`/v4/longview/clients/${c.id}`)).body).toEqual({});
    expect((await t.get(`/v4/longview/clients/${c.id}`)).status).toBe(404);
    expect((await lvEvents(t, 'longviewclient_update'))[0]?.entity.label).toBe('second');
    expect((await lvEvents(t, 'longviewclient_delete'))[0]?.entity.id).toBe(c.id);
  });

  it('longview grants: add_longview to create; read_only sees the keys [REDACTED]; no grant, 404', async () => {
    const c = await client(t, 'shared');
    const none = await createTestUser(t);
    expect((await t.post('/v4/longview/clients', {}, { token: none.token })).status).toBe(403);
    expect((await t.get(`/v4/longview/clients/${c.id}`, { token: none.token })).status).toBe(404);
    expect((await t.get('/v4/longview/clients', { token: none.token })).body.results).toBe(0);
    const ro = await createTestUser(t, {
      grants: [{ type: 'longview', id: c.id, permissions: 'read_only' }],
    });
    const seen = await t.get(`/v4/longview/clients/${c.id}`, { token: ro.token });
    expect(seen.body).toMatchObject({ api_key: '[REDACTED]', install_code: '[REDACTED]' });
    expect(
      (await t.put(`/v4/longview/clients/${c.id}`, { label: 'x1x' }, { token: ro.token })).status,
    ).toBe(403);
    const creator = await createTestUser(t, { global: { add_longview: true } });
    const own = await client(t, 'mine', creator.token);
    expect(own.api_key).toMatch(KEY);
    const grants = await t.get(`/v4/account/users/${creator.username}/grants`);
    expect(grants.body.longview).toEqual([
      { id: c.id, label: 'shared', permissions: null },
      { id: own.id, label: 'mine', permissions: 'read_write' },
    ]);
  });

  it('getLongviewSubscriptions: public, the four Pro tiers with their prices', async () => {
    const r = await t.get('/v4/longview/subscriptions', { token: null });
    expect(r.status).toBe(200);
    expect(r.body.results).toBe(4);
    expect(r.body.data.map((s: { id: string }) => s.id).sort()).toEqual([
      'longview-10',
      'longview-100',
      'longview-3',
      'longview-40',
    ]);
    const one = await t.get('/v4/longview/subscriptions/longview-10', { token: null });
    expect(one.body).toEqual({
      id: 'longview-10',
      label: 'Longview Pro 10 pack',
      clients_included: 10,
      price: { hourly: 0.06, monthly: 40 },
    });
    expect((await t.get('/v4/longview/subscriptions/longview-7', { token: null })).status).toBe(
      404,
    );
  });

  it('updateLongviewPlan: {} on Free; a tier, then "" back to Free; the account settings follow', async () => {
    expect((await t.get('/v4/longview/plan')).body).toEqual({});
    const up = await t.put('/v4/longview/plan', { longview_subscription: 'longview-3' });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ id: 'longview-3', clients_included: 3 });
    expect((await t.get('/v4/account/settings')).body.longview_subscription).toBe('longview-3');
    expect((await t.get('/v4/longview/plan')).body.id).toBe('longview-3');
    const free = await t.put('/v4/longview/plan', { longview_subscription: '' });
    expect(free.body).toEqual({});
    expect((await t.get('/v4/account/settings')).body.longview_subscription).toBeNull();
    const bad = await t.put('/v4/longview/plan', { longview_subscription: 'longview-7' });
    expect(fieldsOf(bad)).toEqual(['longview_subscription']);
    // POST is not the method (the SDK's integration test expects 405).
    expect(
      (await t.post('/v4/longview/plan', { longview_subscription: 'longview-3' })).status,
    ).toBe(405);
  });

  it('createLongviewClient: the plan limits the clients (Free: 10); a plan below the count is refused', async () => {
    for (let i = 0; i < 10; i++) await client(t, `c${i}x`);
    const over = await t.post('/v4/longview/clients', { label: 'c10x' });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].reason).toMatch(/allows 10 clients/);
    const down = await t.put('/v4/longview/plan', { longview_subscription: 'longview-3' });
    expect(fieldsOf(down)).toEqual(['longview_subscription']);
    expect(
      (await t.put('/v4/longview/plan', { longview_subscription: 'longview-40' })).status,
    ).toBe(200);
    await client(t, 'c10x');
  });

  it('longview plan grants: restricted users need longview_subscription to change it and a grant to see it', async () => {
    const none = await createTestUser(t);
    expect((await t.get('/v4/longview/plan', { token: none.token })).status).toBe(403);
    expect(
      (await t.put('/v4/longview/plan', { longview_subscription: null }, { token: none.token }))
        .status,
    ).toBe(403);
    const adder = await createTestUser(t, { global: { add_longview: true } });
    expect((await t.get('/v4/longview/plan', { token: adder.token })).status).toBe(200);
    const sub = await createTestUser(t, { global: { longview_subscription: true } });
    const r = await t.put(
      '/v4/longview/plan',
      { longview_subscription: 'longview-10' },
      { token: sub.token },
    );
    expect(r.status).toBe(200);
  });

  it('updateLongviewPlan: billed by the hour through the billing periods, capped at the monthly price', async () => {
    expect(
      (await t.put('/v4/longview/plan', { longview_subscription: 'longview-10' })).status,
    ).toBe(200);
    t.clock.advance(5 * 3600_000 + 1000);
    // 6 started hours × $0.06.
    expect((await t.get('/v4/account')).body.balance_uninvoiced).toBeCloseTo(0.36, 2);
    expect(
      (await t.put('/v4/longview/plan', { longview_subscription: 'longview-100' })).status,
    ).toBe(200);
    t.clock.advance(3600_000);
    expect((await t.get('/v4/account')).body.balance_uninvoiced).toBeCloseTo(0.66, 2);
    const facts = await t.ctx.db.db
      .selectFrom('billing_facts')
      .selectAll()
      .where('kind', '=', 'longview')
      .orderBy('id')
      .execute();
    expect(facts.map((f) => [f.ref, f.label, f.to_ms === null])).toEqual([
      ['longview-10', 'Longview Pro 10 pack', false],
      ['longview-100', 'Longview Pro 100 pack', true],
    ]);
    // The next month's invoice carries the periods as items.
    t.clock.set(Date.parse('2026-04-01T00:00:10Z'));
    await t.runDue();
    const inv = await t.get('/v4/account/invoices');
    expect(inv.body.results).toBe(1);
    const items = await t.get(`/v4/account/invoices/${inv.body.data[0].id}/items`);
    const labels = items.body.data.map((i: { label: string }) => i.label);
    expect(labels).toEqual(
      expect.arrayContaining(['Longview Pro 10 pack', 'Longview Pro 100 pack']),
    );
    const pro100 = items.body.data.find(
      (i: { label: string }) => i.label === 'Longview Pro 100 pack',
    );
    // Capped at the monthly price.
    expect(pro100.amount).toBeLessThanOrEqual(200);
  });

  it('longview state: a reset of the account brings it back to Free and removes the clients', async () => {
    await client(t, 'gone');
    await t.put('/v4/longview/plan', { longview_subscription: 'longview-3' });
    const euuid = (await t.get('/v4/account')).body.euuid;
    const o = op(t, await operatorToken(t));
    expect((await o.post('/_stratus/reset', { euuid })).status).toBe(200);
    expect((await t.get('/v4/longview/plan')).body).toEqual({});
    expect((await t.get('/v4/longview/clients')).body.results).toBe(0);
  });
});
