import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** NodeBalancer `type`: the plan, set at create, shown, and priced from the types catalogue. */
describe('nodebalancer types', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const fact = (id: number) =>
    t.ctx.db.db
      .selectFrom('billing_facts')
      .selectAll()
      .where('entity_type', '=', 'nodebalancer')
      .where('entity_id', '=', id)
      .executeTakeFirstOrThrow();

  it('createNodeBalancer: type common by default, premium when asked; shown everywhere; not changed by an update', async () => {
    const common = await t.post('/v4/nodebalancers', { region: 'us-east' });
    expect(common.body.type).toBe('common');
    const premium = await t.post('/v4/nodebalancers', { region: 'us-east', type: 'premium' });
    expect(premium.status, premium.text).toBe(200);
    expect(premium.body.type).toBe('premium');
    expect((await t.get(`/v4/nodebalancers/${premium.body.id}`)).body.type).toBe('premium');
    const list = await t.get('/v4/nodebalancers');
    expect(list.body.data.map((n: { type: string }) => n.type)).toEqual(['common', 'premium']);
    const put = await t.put(`/v4/nodebalancers/${premium.body.id}`, { label: 'renamed' });
    expect(put.body.type).toBe('premium');
  });

  it('createNodeBalancer: an unknown type is refused naming the field, and nothing is created', async () => {
    const r = await t.post('/v4/nodebalancers', { region: 'us-east', type: 'premium_40gb' });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field?: string }) => e.field)).toEqual(['type']);
    expect((await t.get('/v4/nodebalancers')).body.results).toBe(0);
  });

  it('billing: a premium NodeBalancer is billed at the premium price of the types catalogue', async () => {
    const types = await t.get('/v4/nodebalancers/types', { token: null });
    expect(types.body.data.map((p: { id: string; price: unknown }) => [p.id, p.price])).toEqual([
      ['nodebalancer', { hourly: 0.015, monthly: 10 }],
      ['nodebalancer-pr100', { hourly: 0.225, monthly: 150 }],
    ]);
    const common = await t.post('/v4/nodebalancers', { region: 'us-east' });
    const premium = await t.post('/v4/nodebalancers', { region: 'us-east', type: 'premium' });
    expect(await fact(common.body.id)).toMatchObject({
      hourly_micros: 15_000,
      monthly_micros: 10_000_000,
    });
    expect(await fact(premium.body.id)).toMatchObject({
      hourly_micros: 225_000,
      monthly_micros: 150_000_000,
    });
    // A region priced above the base: the premium plan's region price.
    const west = await t.post('/v4/nodebalancers', { region: 'ap-west', type: 'premium' });
    expect(west.status, west.text).toBe(200);
    expect((await fact(west.body.id)).hourly_micros).toBe(270_000);
  });
});
