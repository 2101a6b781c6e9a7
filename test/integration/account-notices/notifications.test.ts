import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/lib/time.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createTransfer, instance } from '../transfers/fixtures.js';

type Notice = { type: string; severity: string; entity: { type: string; id: number | null } };

describe('notifications', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const notices = async (token?: string): Promise<Notice[]> => {
    const r = await t.get('/v4/account/notifications', token ? { token } : {});
    expect(r.status).toBe(200);
    return r.body.data;
  };
  const types = async (token?: string) => (await notices(token)).map((n) => n.type);

  it('getNotifications: an outstanding balance gives payment_due until it is paid; restricted users without account access do not see it', async () => {
    expect(await notices()).toEqual([]);
    const setBalance = (cents: number) =>
      t.ctx.db.db
        .updateTable('accounts')
        .set({ balance_cents: cents })
        .where('id', '=', t.admin.accountId)
        .execute();
    await setBalance(1234);
    const [due] = await notices();
    expect(due).toMatchObject({ type: 'payment_due', entity: { type: 'account', id: null } });
    expect((due as unknown as { message: string }).message).toContain('$12.34');
    const { token } = await createTestUser(t);
    expect(await types(token)).toEqual([]);
    await setBalance(0);
    expect(await notices()).toEqual([]);
  });

  it('getNotifications: scheduled maintenance and a pending migration appear, and disappear when done', async () => {
    const a = await instance(t);
    const m = await t.ctx.areas.accountNotices.maintenance.createMaintenance({
      compute_id: a.id,
      type: 'reboot',
      description: 'emergency',
      when: isoSeconds(t.clock.nowMs() + 3600_000),
    });
    expect(await types()).toEqual(['maintenance']);
    const r = await t.post(`/v4/compute/instances/${a.id}/migrate`, { region: 'us-central' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await types()).toEqual(['maintenance', 'migration_pending']);
    const hidden = await createTestUser(t);
    expect(await types(hidden.token)).toEqual([]);
    await t.ctx.areas.accountNotices.maintenance.cancelMaintenance(m.id);
    expect(await types()).toEqual(['migration_pending']);
    await t.settle();
    expect(await types()).toEqual([]);
  });

  it('getNotifications: a pending transfer the account sent is a notice until it is canceled', async () => {
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id]);
    const [n] = await notices();
    expect(n).toMatchObject({ type: 'notice', entity: { type: 'entity_transfer' } });
    expect((n as unknown as { until: string }).until).toBe(tr.body.expiry);
    expect((await t.del(`/v4/account/service-transfers/${tr.body.token}`)).status).toBe(200);
    expect(await notices()).toEqual([]);
  });
});
