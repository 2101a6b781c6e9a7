import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createTransfer, eventsOf, instance, otherAccount } from './fixtures.js';

describe('service transfers under concurrency', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('acceptServiceTransfer: accepted while the sender deletes the instance, it either moves whole or fails whole', async () => {
    const other = await otherAccount(t);
    const outcomes = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const a = await instance(t);
      const tr = await createTransfer(t, [a.id]);
      expect(tr.status).toBe(200);
      const accept = () =>
        t.post(`/v4/account/service-transfers/${tr.body.token}/accept`, undefined, {
          token: other.token,
        });
      const del = () => t.del(`/v4/compute/instances/${a.id}`);
      // Alternate which request is sent first.
      const [acc, rm] =
        round % 2 === 0
          ? await Promise.all([accept(), del()])
          : await Promise.all([del(), accept()]).then(([d, x]) => [x, d] as const);
      await t.settle();
      const rows = async (table: 'disks' | 'configs' | 'ip_addresses' | 'backups') =>
        t.ctx.db.db
          .selectFrom(table)
          .select('account_id')
          .where('instance_id', '=', a.id)
          .execute();
      const status = (await t.get(`/v4/account/service-transfers/${tr.body.token}`)).body.status;
      if (acc.status === 200) {
        outcomes.add('moved');
        expect(rm.status).toBe(404);
        expect(status).toBe('completed');
        expect((await t.get(`/v4/compute/instances/${a.id}`, { token: other.token })).status).toBe(
          200,
        );
        for (const table of ['disks', 'configs', 'ip_addresses'] as const) {
          const r = await rows(table);
          expect(r.length, table).toBeGreaterThan(0);
          expect(
            r.every((x) => x.account_id === other.accountId),
            table,
          ).toBe(true);
        }
      } else {
        outcomes.add('deleted');
        expect(rm.status).toBe(200);
        expect(acc.status).toBe(400);
        expect(status).toBe('failed');
        expect((await t.get(`/v4/compute/instances/${a.id}`, { token: other.token })).status).toBe(
          404,
        );
        expect(
          await t.ctx.db.db.selectFrom('instances').select('id').where('id', '=', a.id).execute(),
        ).toEqual([]);
        for (const table of ['disks', 'configs', 'ip_addresses', 'backups'] as const) {
          expect(await rows(table), table).toEqual([]);
        }
      }
    }
    // Both orders were exercised; whichever won, each round ended whole.
    expect(outcomes.size).toBeGreaterThan(0);
    const fails = await eventsOf(t, 'entity_transfer_fail', other.token);
    const accepts = await eventsOf(t, 'entity_transfer_accept', other.token);
    expect(fails.length + accepts.length).toBe(8);
  });

  it('createServiceTransfer: concurrent transfers of one instance: exactly one is created', async () => {
    const a = await instance(t);
    const replies = await Promise.all(Array.from({ length: 6 }, () => createTransfer(t, [a.id])));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 400)).toHaveLength(5);
  });
});
