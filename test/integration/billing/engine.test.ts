import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { invoiceMonth } from '../../../src/modules/billing/invoicing.js';
import { ensureInvoicing, INVOICING_JOB } from '../../../src/modules/billing/schedule.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { account, addCard, advanceTo, createInstance, invoices, items } from './helpers.js';

describe('billing engine', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await addCard(t);
  });
  afterEach(async () => {
    await t.close();
  });

  const facts = () =>
    t.ctx.db.db
      .selectFrom('billing_facts')
      .selectAll()
      .where('account_id', '=', t.admin.accountId)
      .orderBy('id')
      .execute();
  const invoiceCount = async () =>
    (await t.ctx.db.db.selectFrom('invoices').select('id').execute()).length;
  const paymentCount = async () =>
    (await t.ctx.db.db.selectFrom('payments').select('id').execute()).length;

  it('invoicing: an entity billed all month pays exactly the monthly price', async () => {
    await createInstance(t);
    await advanceTo(t, '2026-05-01T00:00:00Z');
    const [april, march] = await invoices(t);
    // April: 30 d = 720 h × 0.0075 = 5.40, capped at 5.00.
    expect(await items(t, april?.id as number)).toMatchObject([
      {
        from: '2026-04-01T00:00:00',
        to: '2026-04-30T23:59:59',
        quantity: 720,
        unit_price: '0.0075',
        amount: 5,
      },
    ]);
    // March from 03-01 12:00: 732 h × 0.0075 = 5.49, capped at 5.00 too.
    expect((await items(t, march?.id as number))[0]).toMatchObject({ quantity: 732, amount: 5 });
    expect(april?.total).toBe(5);
    expect((await t.get('/v4/account/payments')).body.data.map((p: any) => p.usd)).toEqual([5, 5]);
  });

  it('invoicing: months missed while no process ran are each invoiced once when it runs again', async () => {
    await createInstance(t);
    // The process was down from March to mid-June: the clock jumps, no job ran on the way.
    t.clock.set(Date.parse('2026-06-15T00:00:00Z'));
    await t.runDue();
    const all = await invoices(t);
    expect(all.map((i) => i.date)).toEqual([
      '2026-06-15T00:00:00',
      '2026-06-15T00:00:00',
      '2026-06-15T00:00:00',
    ]);
    const periods = await t.ctx.db.db
      .selectFrom('invoices')
      .select('period')
      .orderBy('period')
      .execute();
    expect(periods.map((p) => p.period)).toEqual(['2026-03', '2026-04', '2026-05']);
    expect(all.map((i) => i.total)).toEqual([5, 5, 5]);
    // Running again changes nothing; the schedule waits for 07-01.
    await t.runDue();
    expect(await invoiceCount()).toBe(3);
    const job = await t.ctx.db.db
      .selectFrom('jobs')
      .select(['run_at', 'status'])
      .where('name', '=', INVOICING_JOB)
      .execute();
    expect(job).toEqual([{ run_at: Date.parse('2026-07-01T00:00:00Z'), status: 'queued' }]);
  });

  it('invoicing: two transactions opening billing at once queue one schedule; two workers at the 1st write one invoice and one payment', async () => {
    await createInstance(t);
    // Two processes opening billing periods together: one standing schedule (on PostgreSQL the
    // transactions run in parallel; the partial unique index decides).
    await t.ctx.db.db.deleteFrom('jobs').where('name', '=', INVOICING_JOB).execute();
    await Promise.all(
      [0, 1].map(() => t.ctx.db.transaction((tx) => ensureInvoicing(tx, t.clock.nowMs()))),
    );
    const schedules = await t.ctx.db.db
      .selectFrom('jobs')
      .select('id')
      .where('name', '=', INVOICING_JOB)
      .execute();
    expect(schedules).toHaveLength(1);
    // A second schedule queued by hand is refused by the same index.
    await expect(
      t.ctx.queue.enqueue(
        t.ctx.db,
        { ...t.ctx.modules.flatMap((m) => m.jobs ?? []).find((d) => d.name === INVOICING_JOB)! },
        { monthStartMs: Date.parse('2026-03-01T00:00:00Z') },
        { delayMs: Date.parse('2026-04-01T00:00:00Z') - t.clock.nowMs() },
      ),
    ).rejects.toThrow();
    const second = new JobRunner({
      db: t.ctx.db,
      clock: t.clock,
      timing: t.ctx.timing,
      events: t.ctx.events,
      queue: t.ctx.queue,
      entities: t.ctx.entities,
      log: t.ctx.log,
      definitions: t.ctx.modules.flatMap((m) => m.jobs ?? []),
      batchSize: 1,
    });
    t.clock.set(Date.parse('2026-04-01T00:00:00Z'));
    await Promise.all([t.runDue(), second.runDue(), t.runDue(), second.runDue()]);
    expect(await invoiceCount()).toBe(1);
    expect(await paymentCount()).toBe(1);
    // The month again (a worker that lost its lease and re-runs): the (account, period) key holds.
    await invoiceMonth(
      { db: t.ctx.db, events: t.ctx.events, clock: t.clock, log: t.ctx.log },
      Date.parse('2026-03-01T00:00:00Z'),
    );
    expect(await invoiceCount()).toBe(1);
    expect(await paymentCount()).toBe(1);
    expect((await account(t)).balance).toBe(0);
  });

  it('deleteComputeInstance: billing stops when the instance is deleted', async () => {
    const id = await createInstance(t);
    await advanceTo(t, '2026-03-02T12:00:00Z');
    expect((await t.del(`/v4/compute/instances/${id}`)).status).toBe(200);
    await t.settle();
    // The delete job ends within the second (fast timing): the period closes then.
    const [f] = await facts();
    expect(f?.to_ms).toBe(Date.parse('2026-03-02T12:00:00Z'));
    // 24 h × 0.0075 = 0.18, and it stays there.
    expect((await account(t)).balance_uninvoiced).toBe(0.18);
    await advanceTo(t, '2026-03-20T00:00:00Z');
    expect((await account(t)).balance_uninvoiced).toBe(0.18);
  });

  it('deleteComputeIP: the extra IPv4 period closes; the first address is never billed', async () => {
    const id = await createInstance(t);
    expect((await facts()).map((f) => f.kind)).toEqual(['compute_type']);
    const ip = await t.post(`/v4/compute/instances/${id}/ips`, { type: 'ipv4', public: true });
    expect(ip.status).toBe(200);
    expect((await facts()).map((f) => [f.kind, f.ref, f.to_ms])).toEqual([
      ['compute_type', 'g6-nanode-1', null],
      ['ipv4', ip.body.address, null],
    ]);
    await advanceTo(t, '2026-03-01T15:00:00Z');
    expect((await t.del(`/v4/compute/instances/${id}/ips/${ip.body.address}`)).status).toBe(200);
    const ipFact = (await facts()).find((f) => f.kind === 'ipv4');
    expect(ipFact?.to_ms).toBe(Date.parse('2026-03-01T15:00:00Z'));
    // 3 h × 0.0075 + 3 h × 0.003 = 0.0225 + 0.009 → 0.02 + 0.01.
    expect((await account(t)).balance_uninvoiced).toBe(0.03);
  });

  it('assignIPs: an extra IPv4 moved to another instance is billed to that instance from then on', async () => {
    const a = await createInstance(t);
    const b = await createInstance(t);
    const added = Math.floor(t.clock.nowMs() / 1000) * 1000;
    const ip = await t.post(`/v4/compute/instances/${a}/ips`, { type: 'ipv4', public: true });
    expect(ip.status).toBe(200);
    await advanceTo(t, '2026-03-01T18:00:00Z');
    const r = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: ip.body.address, compute_id: b }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const v4 = (await facts()).filter((f) => f.kind === 'ipv4');
    expect(v4.map((f) => [f.entity_id, f.ref, f.from_ms, f.to_ms])).toEqual([
      [a, ip.body.address, added, Date.parse('2026-03-01T18:00:00Z')],
      [b, ip.body.address, Date.parse('2026-03-01T18:00:00Z'), null],
    ]);
  });

  it('cloneComputeInstance: the new instance is billed at its own type from its creation', async () => {
    const src = await createInstance(t);
    const r = await t.post(`/v4/compute/instances/${src}/clone`, {
      region: 'us-east',
      type: 'g6-standard-1',
      backups_enabled: true,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const created = Math.floor(t.clock.nowMs() / 1000) * 1000;
    const mine = (await facts()).filter((f) => f.entity_id === r.body.id);
    expect(mine.map((f) => [f.kind, f.ref, Number(f.hourly_micros), f.from_ms, f.to_ms])).toEqual([
      ['compute_type', 'g6-standard-1', 18_000, created, null],
      ['backups', 'g6-standard-1', 4_000, created, null],
    ]);
  });

  it('backups: enable then cancel bills the add-on between the two', async () => {
    const id = await createInstance(t);
    await advanceTo(t, '2026-03-01T13:00:00Z');
    expect((await t.post(`/v4/compute/instances/${id}/backups/enable`)).status).toBe(200);
    await advanceTo(t, '2026-03-01T23:00:00Z');
    expect((await t.post(`/v4/compute/instances/${id}/backups/cancel`)).status).toBe(200);
    const b = (await facts()).find((f) => f.kind === 'backups');
    expect([b?.from_ms, b?.to_ms]).toEqual([
      Date.parse('2026-03-01T13:00:00Z'),
      Date.parse('2026-03-01T23:00:00Z'),
    ]);
    // nanode backups $0.003/h: 10 h = 0.03.
    expect(Number(b?.hourly_micros)).toBe(3000);
  });

  it('object storage: billed from the first key until POST /object-storage/cancel', async () => {
    expect((await t.post('/v4/object-storage/keys', { label: 'k1' })).status).toBe(200);
    expect((await t.post('/v4/object-storage/keys', { label: 'k2' })).status).toBe(200);
    expect((await facts()).map((f) => [f.kind, f.to_ms])).toEqual([['object_storage', null]]);
    await advanceTo(t, '2026-03-01T14:00:00Z');
    expect((await t.post('/v4/object-storage/cancel')).status).toBe(200);
    expect((await facts()).map((f) => f.to_ms)).toEqual([Date.parse('2026-03-01T14:00:00Z')]);
  });

  it('object storage: storage over 250 GB and transfer over 1 TB are invoiced per GB', async () => {
    expect(
      (await t.post('/v4/object-storage/buckets', { cluster: 'us-east-1', label: 'bucket-one' }))
        .status,
    ).toBe(200);
    await t.ctx.db.db
      .insertInto('obj_transfer')
      .values({
        account_id: t.admin.accountId,
        month: '2026-03',
        bytes_out: 1010 * 1024 ** 3,
        bytes_in: 0,
      })
      .execute();
    // 260 GB stored when the invoice is written (the counters the buckets keep).
    await t.ctx.db.db
      .updateTable('obj_buckets')
      .set({ size: 260 * 1024 ** 3 })
      .where('account_id', '=', t.admin.accountId)
      .execute();
    // The estimate leaves transfer out (spec): at 03-31 23:30, 731.5 h → 732 h × 0.0075 =
    // 5.49 → capped 5.00, plus storage 10 GB × 0.02 = 0.20: 5.20.
    await advanceTo(t, '2026-03-31T23:30:00Z');
    expect((await account(t)).balance_uninvoiced).toBe(5.2);
    await advanceTo(t, '2026-04-01T00:00:00Z');
    const [inv] = await invoices(t);
    // Flat: 03-01 12:00 → 04-01 = 732 h × 0.0075 = 5.49 → capped 5.00;
    // storage: 260 GB − 250 GB included = 10 GB × 0.02 = 0.20;
    // transfer: 1010 GB − 1000 GB included = 10 GB × 0.005 = 0.05.
    expect(await items(t, inv?.id as number)).toMatchObject([
      { label: 'Object Storage', amount: 5, type: 'hourly' },
      {
        label: 'Object Storage - storage over 250 GB',
        quantity: 10,
        unit_price: '0.02',
        amount: 0.2,
        type: 'misc',
      },
      { label: 'Object Storage - transfer over 1 TB', quantity: 10, amount: 0.05, type: 'misc' },
    ]);
    expect(inv?.total).toBe(5.25);
  });

  it('invoicing: the schedule is queued once when billing starts, and again after a reset', async () => {
    const jobs = () =>
      t.ctx.db.db.selectFrom('jobs').select('run_at').where('name', '=', INVOICING_JOB).execute();
    expect(await jobs()).toEqual([]);
    await createInstance(t);
    expect((await t.post('/v4/volumes', { label: 'v1', region: 'us-east', size: 20 })).status).toBe(
      200,
    );
    expect(await jobs()).toEqual([{ run_at: Date.parse('2026-04-01T00:00:00Z') }]);
    await t.ctx.state.reset();
    expect(await jobs()).toEqual([]);
    await advanceTo(t, '2026-04-10T00:00:00Z');
    const again = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'again@example.com',
      username: 'again',
    });
    await createInstance(t, {}, again.token);
    expect(await jobs()).toEqual([{ run_at: Date.parse('2026-05-01T00:00:00Z') }]);
  });
});

describe('price catalogues', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getVolumeTypes, getNodeBalancerTypes, getObjectStorageTypes, getNetworkTransferPrices: public, paged, with region prices', async () => {
    const get = async (path: string) => {
      const r = await t.get(path, { token: null });
      expect(r.status, path).toBe(200);
      expect(r.body).toMatchObject({ page: 1, pages: 1 });
      return r.body.data;
    };
    expect(await get('/v4/volumes/types')).toEqual([
      {
        id: 'volume',
        label: 'Storage Volume',
        price: { hourly: 0.00015, monthly: 0.1 },
        region_prices: [
          { id: 'ap-west', hourly: 0.00018, monthly: 0.12 },
          { id: 'ap-southeast', hourly: 0.00018, monthly: 0.12 },
        ],
        transfer: 0,
      },
    ]);
    expect((await get('/v4/nodebalancers/types'))[0]).toMatchObject({
      id: 'nodebalancer',
      price: { hourly: 0.015, monthly: 10 },
    });
    expect((await get('/v4/object-storage/types'))[0]).toMatchObject({
      id: 'objectstorage',
      price: { hourly: 0.0075, monthly: 5 },
      transfer: 1000,
    });
    expect((await get('/v4/network-transfer/prices')).map((p: any) => [p.id, p.price])).toEqual([
      ['distributed_network_transfer', { hourly: 0.01, monthly: null }],
      ['network_transfer', { hourly: 0.005, monthly: null }],
    ]);
  });

  it('createVolume: a volume in a dearer region is billed at its region price', async () => {
    const v = await t.post('/v4/volumes', { label: 'v-ap', region: 'ap-west', size: 10 });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    const f = await t.ctx.db.db
      .selectFrom('billing_facts')
      .selectAll()
      .where('entity_type', '=', 'volume')
      .executeTakeFirstOrThrow();
    expect([Number(f.hourly_micros), Number(f.monthly_micros), f.quantity, f.region]).toEqual([
      180,
      120_000,
      10,
      'ap-west',
    ]);
  });
});
