import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listTables } from '../../../src/modules/controls/state.tables.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createTransfer, eventsOf, instance, otherAccount } from './fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('service transfers', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createServiceTransfer: pending, a uuid token, expiry exactly 24 hours after created, and an entity_transfer_create event', async () => {
    const a = await instance(t);
    const r = await createTransfer(t, [a.id, a.id]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).toBe('pending');
    expect(r.body.token).toMatch(UUID);
    expect(r.body.is_sender).toBe(true);
    expect(r.body.entities).toEqual({ computes: [a.id] });
    expect(Date.parse(`${r.body.expiry}Z`) - Date.parse(`${r.body.created}Z`)).toBe(24 * 3600_000);
    const [ev] = await eventsOf(t, 'entity_transfer_create');
    expect(ev?.entity.type).toBe('entity_transfer');
    expect(ev?.entity.label).toBe(r.body.token);
    expect(ev?.username).toBe('owner');
  });

  it('createServiceTransfer: refuses no entities, unknown ids, ids of another account, and ids already in a pending transfer', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    const theirs = await instance(t, {}, other.token);
    for (const body of [{}, { entities: {} }, { entities: { computes: [] } }]) {
      const r = await t.post('/v4/account/service-transfers', body);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('entities');
    }
    for (const ids of [[a.id, 999_999], [theirs.id]]) {
      const r = await createTransfer(t, ids);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('entities.computes');
    }
    expect((await createTransfer(t, [a.id])).status).toBe(200);
    const again = await createTransfer(t, [a.id]);
    expect(again.status).toBe(400);
    expect(again.body.errors[0].reason).toMatch(/pending transfer/);
    expect(await t.ctx.db.db.selectFrom('service_transfers').selectAll().execute()).toHaveLength(1);
  });

  it('createServiceTransfer: refuses an instance with an attached volume, in a firewall, or busy', async () => {
    const a = await instance(t);
    const vol = await t.post('/v4/volumes', { label: 'v1', region: 'us-east' });
    expect(vol.status).toBe(200);
    await t.settle();
    expect((await t.post(`/v4/volumes/${vol.body.id}/attach`, { compute_id: a.id })).status).toBe(
      200,
    );
    await t.settle();
    const r = await createTransfer(t, [a.id]);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/attached volumes/);
    expect((await t.post(`/v4/volumes/${vol.body.id}/detach`)).status).toBe(200);
    await t.settle();

    const fw = await t.post('/v4/networking/firewalls', {
      label: 'fw1',
      rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
      devices: { computes: [a.id] },
    });
    expect(fw.status, JSON.stringify(fw.body)).toBe(200);
    const f = await createTransfer(t, [a.id]);
    expect(f.status).toBe(400);
    expect(f.body.errors[0].reason).toMatch(/firewall/);
    expect((await t.del(`/v4/networking/firewalls/${fw.body.id}`)).status).toBe(200);

    expect((await t.post(`/v4/compute/instances/${a.id}/reboot`)).status).toBe(200);
    const busy = await createTransfer(t, [a.id]);
    expect(busy.status).toBe(400);
    expect(busy.body.errors[0].reason).toBe('Compute busy.');
    await t.settle();
    expect((await createTransfer(t, [a.id])).status).toBe(200);
  });

  it('service transfers: a restricted user gets 403 on every route', async () => {
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id]);
    const { token } = await createTestUser(t, {
      global: { account_access: 'read_write', add_computes: true },
      grants: [{ type: 'compute', id: a.id, permissions: 'read_write' }],
    });
    for (const base of ['service-transfers', 'entity-transfers']) {
      const path = `/v4/account/${base}`;
      const replies = [
        await t.get(path, { token }),
        await t.post(path, { entities: { computes: [a.id] } }, { token }),
        await t.get(`${path}/${tr.body.token}`, { token }),
        await t.del(`${path}/${tr.body.token}`, { token }),
        await t.post(`${path}/${tr.body.token}/accept`, undefined, { token }),
      ];
      expect(replies.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    }
    expect((await t.get(`/v4/account/service-transfers/${tr.body.token}`)).body.status).toBe(
      'pending',
    );
  });

  it('acceptServiceTransfer: moves the instance whole (disks, configs, addresses, backups); the sender loses it, grants on it are dropped', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    expect((await t.post(`/v4/compute/instances/${a.id}/backups/enable`)).status).toBe(200);
    const snap = await t.post(`/v4/compute/instances/${a.id}/backups`, { label: 'before' });
    expect(snap.status, JSON.stringify(snap.body)).toBe(200);
    await t.settle();
    const restricted = await createTestUser(t, {
      grants: [{ type: 'compute', id: a.id, permissions: 'read_write' }],
    });
    const before = {
      disks: (await t.get(`/v4/compute/instances/${a.id}/disks`)).body.data,
      configs: (await t.get(`/v4/compute/instances/${a.id}/configs`)).body.data,
      ips: (await t.get(`/v4/compute/instances/${a.id}/ips`)).body,
      backups: (await t.get(`/v4/compute/instances/${a.id}/backups`)).body,
    };
    expect(before.disks.length).toBeGreaterThan(0);
    expect(before.backups.snapshot.current?.label).toBe('before');

    const m = await t.ctx.areas.accountNotices.maintenance.createMaintenance({
      compute_id: a.id,
      type: 'reboot',
      when: '2030-01-01T00:00:00',
    });
    const tr = await createTransfer(t, [a.id]);
    const seen = await t.get(`/v4/account/service-transfers/${tr.body.token}`, {
      token: other.token,
    });
    expect(seen.status).toBe(200);
    expect(seen.body.is_sender).toBe(false);
    const acc = await t.post(`/v4/account/service-transfers/${tr.body.token}/accept`, undefined, {
      token: other.token,
    });
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(acc.body).toEqual({});

    const as = { token: other.token };
    const got = await t.get(`/v4/compute/instances/${a.id}`, as);
    expect(got.status).toBe(200);
    expect(got.body.label).toBe(a.label);
    expect((await t.get(`/v4/compute/instances/${a.id}/disks`, as)).body.data).toEqual(
      before.disks,
    );
    expect((await t.get(`/v4/compute/instances/${a.id}/configs`, as)).body.data).toEqual(
      before.configs,
    );
    expect((await t.get(`/v4/compute/instances/${a.id}/ips`, as)).body).toEqual(before.ips);
    expect((await t.get(`/v4/compute/instances/${a.id}/backups`, as)).body).toEqual(before.backups);
    const address = before.ips.ipv4.public[0].address;
    expect((await t.get(`/v4/networking/ips/${address}`, as)).status).toBe(200);

    for (const path of ['', '/disks', '/configs', '/ips', '/backups']) {
      expect((await t.get(`/v4/compute/instances/${a.id}${path}`)).status).toBe(404);
    }
    expect((await t.get(`/v4/networking/ips/${address}`)).status).toBe(404);
    expect((await t.get(`/v4/compute/instances/${a.id}`, { token: restricted.token })).status).toBe(
      404,
    );
    const grants = await t.ctx.db.db
      .selectFrom('entity_grants')
      .selectAll()
      .where('entity_type', '=', 'compute')
      .where('entity_id', '=', a.id)
      .execute();
    expect(grants).toEqual([]);

    // Every row of the instance in a table with account_id moved (run history stays the sender's).
    for (const table of await listTables(t.ctx.db)) {
      const col = ['instance_id', 'compute_id'].find((c) => table.columns.includes(c));
      if (!table.hasAccountId || !col || table.name === 'instance_runs') continue;
      const rows = await t.ctx.db.db
        .selectFrom(table.name as 'disks')
        .select('account_id')
        .where(col as 'instance_id', '=', a.id)
        .execute();
      expect(
        rows.filter((r) => r.account_id !== other.accountId),
        table.name,
      ).toEqual([]);
    }

    expect((await t.get('/v4/account/maintenance')).body.data).toEqual([]);
    expect((await t.get('/v4/account/maintenance', as)).body.data).toHaveLength(1);
    const moved = await t.ctx.areas.accountNotices.maintenance.listMaintenance();
    expect(moved.data.find((x) => x.id === m.id)?.euuid).not.toBe(t.admin.euuid);
    const view = await t.get(`/v4/account/service-transfers/${tr.body.token}`, as);
    expect(view.body.status).toBe('completed');
    expect((await t.get('/v4/account/service-transfers', as)).body.data).toHaveLength(1);
    const mine = await eventsOf(t, 'entity_transfer_accept');
    const theirs = await eventsOf(t, 'entity_transfer_accept', other.token);
    expect(mine).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(theirs[0]?.entity.label).toBe(tr.body.token);
  });

  it('acceptServiceTransfer: billing changes hands at the accept (the sender pays up to it, the receiver from it)', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    const r = await createTransfer(t, [a.id]);
    t.clock.advance(3 * 3600_000);
    const acceptedMs = t.clock.nowMs();
    const ok = await t.post(`/v4/account/service-transfers/${r.body.token}/accept`, undefined, {
      token: other.token,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const facts = await t.ctx.db.db
      .selectFrom('billing_facts')
      .selectAll()
      .where('entity_type', '=', 'compute')
      .where('entity_id', '=', a.id)
      .orderBy('id')
      .execute();
    const byAccount = (id: number) => facts.filter((f) => f.account_id === id);
    const sender = byAccount(t.admin.accountId);
    const receiver = byAccount(other.accountId);
    expect(sender).toHaveLength(1);
    expect(receiver).toHaveLength(1);
    expect(Number(sender[0]?.to_ms)).toBe(Math.floor(acceptedMs / 1000) * 1000);
    expect(Number(receiver[0]?.from_ms)).toBe(Number(sender[0]?.to_ms));
    expect(receiver[0]?.to_ms).toBeNull();
  });

  it('acceptServiceTransfer: a receiver without a payment method is refused and the transfer stays pending', async () => {
    const bare = await otherAccount(t, { card: false });
    const a = await instance(t);
    const r = await createTransfer(t, [a.id]);
    const url = `/v4/account/service-transfers/${r.body.token}`;
    const refused = await t.post(`${url}/accept`, undefined, { token: bare.token });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/payment method/);
    expect((await t.get(url)).body.status).toBe('pending');
    expect((await t.get(`/v4/compute/instances/${a.id}`)).status).toBe(200);
  });

  it('createServiceTransfer: refused while the sender has a past-due balance', async () => {
    const a = await instance(t);
    await t.ctx.db.db
      .updateTable('accounts')
      .set({ balance_cents: 1250 })
      .where('id', '=', t.admin.accountId)
      .execute();
    const r = await createTransfer(t, [a.id]);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/past-due balance/);
    expect(await t.ctx.db.db.selectFrom('service_transfers').selectAll().execute()).toHaveLength(0);
  });

  it('acceptServiceTransfer: refused for the sender, and a second time', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id]);
    const url = `/v4/account/service-transfers/${tr.body.token}/accept`;
    const own = await t.post(url);
    expect(own.status).toBe(400);
    expect((await t.get(`/v4/compute/instances/${a.id}`)).status).toBe(200);
    expect((await t.post(url, undefined, { token: other.token })).status).toBe(200);
    const third = await otherAccount(t);
    expect((await t.post(url, undefined, { token: other.token })).status).toBe(400);
    // No longer pending: a third account does not see it at all.
    expect((await t.post(url, undefined, { token: third.token })).status).toBe(404);
    expect((await t.get(`/v4/compute/instances/${a.id}`, { token: other.token })).status).toBe(200);
  });

  it('service transfers: a pending transfer goes stale at its expiry on the job clock, and can then be neither accepted nor canceled', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id]);
    const url = `/v4/account/service-transfers/${tr.body.token}`;
    t.clock.advance(24 * 3600_000 - 1000);
    await t.runDue();
    expect((await t.get(url)).body.status).toBe('pending');
    t.clock.advance(1000);
    await t.runDue();
    expect((await t.get(url)).body.status).toBe('stale');
    const stale = await eventsOf(t, 'entity_transfer_stale');
    expect(stale).toHaveLength(1);
    expect(stale[0]?.entity.label).toBe(tr.body.token);
    expect((await t.post(`${url}/accept`, undefined, { token: other.token })).status).toBe(404);
    expect((await t.del(url)).status).toBe(400);
    expect((await t.get(`/v4/compute/instances/${a.id}`)).status).toBe(200);
    // The instance can be offered again.
    expect((await createTransfer(t, [a.id])).status).toBe(200);
  });

  it('acceptServiceTransfer: an accept after the expiry, before the job ran, is refused and makes the transfer stale', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id]);
    t.clock.advance(24 * 3600_000);
    const r = await t.post(`/v4/account/service-transfers/${tr.body.token}/accept`, undefined, {
      token: other.token,
    });
    expect(r.status).toBe(400);
    expect((await t.get(`/v4/account/service-transfers/${tr.body.token}`)).body.status).toBe(
      'stale',
    );
    await t.runDue();
    expect(await eventsOf(t, 'entity_transfer_stale')).toHaveLength(1);
    expect((await t.get(`/v4/compute/instances/${a.id}`)).status).toBe(200);
  });

  it('acceptServiceTransfer: a label the receiver already uses is refused and the transfer stays pending; after a rename it moves', async () => {
    const other = await otherAccount(t);
    const a = await instance(t, { label: 'web-1' });
    const theirs = await instance(t, { label: 'web-1' }, other.token);
    const tr = await createTransfer(t, [a.id]);
    const url = `/v4/account/service-transfers/${tr.body.token}`;
    const r = await t.post(`${url}/accept`, undefined, { token: other.token });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toEqual({
      field: 'entities.computes',
      reason: 'A compute instance labeled web-1 already exists in your account.',
    });
    expect((await t.get(url)).body.status).toBe('pending');
    expect((await t.get(`/v4/compute/instances/${a.id}`)).status).toBe(200);
    const renamed = await t.put(
      `/v4/compute/instances/${theirs.id}`,
      { label: 'web-0' },
      { token: other.token },
    );
    expect(renamed.status).toBe(200);
    expect((await t.post(`${url}/accept`, undefined, { token: other.token })).status).toBe(200);
  });

  it('service transfers: the expiry job run by several runners at once makes the transfer stale once', async () => {
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id]);
    t.clock.advance(24 * 3600_000);
    await Promise.all([t.runDue(), t.runDue(), t.runDue()]);
    expect((await t.get(`/v4/account/service-transfers/${tr.body.token}`)).body.status).toBe(
      'stale',
    );
    expect(await eventsOf(t, 'entity_transfer_stale')).toHaveLength(1);
  });

  it('acceptServiceTransfer: several instances move together or not at all', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    const b = await instance(t);
    const tr = await createTransfer(t, [a.id, b.id]);
    expect(tr.body.entities.computes).toEqual([a.id, b.id]);
    // After the transfer was offered, one instance joins a firewall: the accept is refused whole.
    const fw = await t.post('/v4/networking/firewalls', {
      label: 'late',
      rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
      devices: { computes: [b.id] },
    });
    expect(fw.status).toBe(200);
    const url = `/v4/account/service-transfers/${tr.body.token}`;
    const r = await t.post(`${url}/accept`, undefined, { token: other.token });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/firewall/);
    for (const id of [a.id, b.id]) {
      expect((await t.get(`/v4/compute/instances/${id}`)).status).toBe(200);
      expect((await t.get(`/v4/compute/instances/${id}`, { token: other.token })).status).toBe(404);
    }
    expect((await t.del(`/v4/networking/firewalls/${fw.body.id}`)).status).toBe(200);
    expect((await t.post(`${url}/accept`, undefined, { token: other.token })).status).toBe(200);
    const theirs = await t.get('/v4/compute/instances', { token: other.token });
    expect(theirs.body.data.map((i: { id: number }) => i.id)).toEqual([a.id, b.id]);
    expect((await t.get('/v4/compute/instances')).body.data).toEqual([]);
  });

  it('deleteServiceTransfer: the sender cancels a pending transfer; the receiver may not; then nobody else sees it', async () => {
    const other = await otherAccount(t);
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id]);
    const url = `/v4/account/service-transfers/${tr.body.token}`;
    expect((await t.del(url, { token: other.token })).status).toBe(403);
    const r = await t.del(url);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get(url)).body.status).toBe('canceled');
    expect((await t.get(url, { token: other.token })).status).toBe(404);
    expect((await t.post(`${url}/accept`, undefined, { token: other.token })).status).toBe(404);
    expect((await t.del(url)).status).toBe(400);
    expect(await eventsOf(t, 'entity_transfer_cancel')).toHaveLength(1);
  });

  it('getEntityTransfers: the deprecated routes show the same records as the service transfers', async () => {
    const a = await instance(t);
    const tr = await createTransfer(t, [a.id], undefined, 'entity-transfers');
    expect(tr.status).toBe(200);
    const list = await t.get('/v4/account/service-transfers');
    expect(list.body.data).toEqual([tr.body]);
    const view = await t.get(`/v4/account/entity-transfers/${tr.body.token}`);
    expect(view.body).toEqual(tr.body);
    const filtered = await t.get('/v4/account/entity-transfers', {
      filter: { status: 'canceled' },
    });
    expect(filtered.body.data).toEqual([]);
    const mine = await t.get('/v4/account/entity-transfers', { filter: { is_sender: true } });
    expect(mine.body.results).toBe(1);
    expect((await t.get('/v4/account/service-transfers/not-a-uuid')).status).toBe(404);
  });
});
