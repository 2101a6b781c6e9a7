import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createVolume, op, operatorToken, secondAccount, sshKey } from './helpers.js';

describe('emulator controls: operator token and reset', () => {
  let t: TestApp;
  let token: string;
  beforeEach(async () => {
    t = await buildTestApp();
    token = await operatorToken(t);
  });
  afterEach(async () => {
    await t.close();
  });

  it('operator token: controls refuse no token, an API token and a wrong one; probes stay open', async () => {
    for (const tk of [null, t.admin.token, `${token}x`]) {
      const r = await t.post('/_stratus/reset', undefined, { token: tk });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ errors: [{ reason: 'Invalid Token' }] });
      expect((await t.get('/_stratus/timing', { token: tk })).status).toBe(401);
      expect((await t.get('/_stratus/metrics', { token: tk })).status).toBe(401);
      expect((await t.get('//_stratus/snapshot', { token: tk })).status).toBe(401);
    }
    expect((await t.get('/_stratus/health', { token: null })).status).toBe(200);
    expect((await t.get('/_stratus/ready', { token: null })).status).toBe(200);
    expect((await t.get('/_stratus/metrics', { token })).status).toBe(200);
    expect((await t.get('/_stratus/timing', { token })).status).toBe(200);
  });

  it('operator token: the first start draws it once; later starts draw none', async () => {
    expect(await t.ctx.areas.controls.operator.ensure()).toBeUndefined();
    const next = await t.ctx.areas.controls.operator.rotate();
    expect((await t.get('/_stratus/timing', { token })).status).toBe(401);
    expect((await t.get('/_stratus/timing', { token: next })).status).toBe(200);
    const stored = await t.ctx.db.db.selectFrom('emulator_settings').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(next);
  });

  it('reset: every account back to the first-start state, ids restart, catalogue kept', async () => {
    const other = await secondAccount(t);
    await createVolume(t, 'a1');
    await createVolume(t, 'b1', other.token);
    await sshKey(t, 'k1');
    await t.settle();
    const regions = (await t.get('/v4/regions')).body;
    const types = (await t.get('/v4/compute/types')).body;
    // Cached principals and feed pages, to prove they are not served stale.
    expect((await t.get('/v4/account/events')).body.results).toBeGreaterThan(0);

    const r = await op(t, token).post('/_stratus/reset');
    expect(r.status, r.text).toBe(200);
    expect(r.body.scope).toBe('all');
    expect(r.body.admin.username).toBe('admin');

    expect((await t.get('/v4/profile')).status).toBe(401);
    expect((await t.get('/v4/profile', { token: other.token })).status).toBe(401);
    const admin = r.body.admin.token as string;
    expect((await t.get('/v4/profile', { token: admin })).body.username).toBe('admin');
    expect((await t.get('/v4/volumes', { token: admin })).body.results).toBe(0);
    expect((await t.get('/v4/profile/sshkeys', { token: admin })).body.results).toBe(0);
    expect((await t.get('/v4/account/events', { token: admin })).body.results).toBe(0);
    const users = await t.ctx.db.db.selectFrom('users').select('username').execute();
    expect(users.map((u) => u.username)).toEqual(['admin']);
    expect(await t.ctx.db.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
    expect((await t.get('/v4/regions', { token: admin })).body).toEqual(regions);
    expect((await t.get('/v4/compute/types', { token: admin })).body).toEqual(types);
    // First-start ids: the next volume is number 1 again.
    expect(await createVolume(t, 'again', admin)).toBe(1);
  });

  it('reset: the default admin keeps its token (the one printed at the first start)', async () => {
    // The first reset makes the default account (this test app began without it).
    const first = await op(t, token).post('/_stratus/reset');
    const admin = first.body.admin.token as string;
    await createVolume(t, 'gone', admin);
    const again = await op(t, token).post('/_stratus/reset');
    expect(again.status, again.text).toBe(200);
    // No new token to show: the one the caller holds still works.
    expect(again.body).toEqual({ scope: 'all' });
    const me = await t.get('/v4/profile', { token: admin });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('admin');
    expect((await t.get('/v4/volumes', { token: admin })).body.results).toBe(0);
    // It is the only token of the new admin, listed as before.
    const list = (await t.get('/v4/profile/tokens', { token: admin })).body;
    expect(list.data.map((x: { label: string }) => x.label)).toEqual(['bootstrap']);
    expect(list.data[0].token).toBe(admin.slice(0, 16));
  });

  it('reset: one account loses its entities and events, keeps its users and tokens; others untouched', async () => {
    const other = await secondAccount(t);
    const mine = await createVolume(t, 'mine');
    const theirs = await createVolume(t, 'theirs', other.token);
    await sshKey(t, 'mykey');
    await t.settle();
    const before = await t.get('/v4/account/events');
    expect(before.body.results).toBeGreaterThan(0);
    const euuid = (await t.get('/v4/account')).body.euuid as string;

    const r = await op(t, token).post('/_stratus/reset', { euuid });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ scope: 'account', euuid });

    expect((await t.get('/v4/profile')).status).toBe(200);
    expect((await t.get(`/v4/volumes/${mine}`)).status).toBe(404);
    expect((await t.get('/v4/profile/sshkeys')).body.results).toBe(0);
    expect((await t.get('/v4/account/events')).body.results).toBe(0);
    expect((await t.get(`/v4/volumes/${theirs}`, { token: other.token })).status).toBe(200);
    expect(
      (await t.get('/v4/account/events', { token: other.token })).body.results,
    ).toBeGreaterThan(0);
  });

  it('reset: one account loses the entity grants of its users with the entities', async () => {
    const vol = await createVolume(t, 'granted');
    const u = await t.post('/v4/account/users', {
      username: 'restricted1',
      email: 'r1@example.com',
      restricted: true,
    });
    expect(u.status, u.text).toBe(200);
    const g = await t.put('/v4/account/users/restricted1/grants', {
      volume: [{ id: vol, permissions: 'read_write' }],
    });
    expect(g.status, g.text).toBe(200);
    const before = await t.ctx.db.db.selectFrom('entity_grants').selectAll().execute();
    expect(before.some((r) => r.entity_type === 'volume' && r.entity_id === vol)).toBe(true);
    const euuid = (await t.get('/v4/account')).body.euuid as string;
    expect((await op(t, token).post('/_stratus/reset', { euuid })).status).toBe(200);
    expect(await t.ctx.db.db.selectFrom('entity_grants').selectAll().execute()).toEqual([]);
    expect((await t.get('/v4/account/users/restricted1')).status).toBe(200);
  });

  it('reset: an unknown account euuid is a 400 naming the field, and nothing changes', async () => {
    await createVolume(t, 'keep');
    const r = await op(t, token).post('/_stratus/reset', { euuid: 'NOPE' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('euuid');
    expect((await t.get('/v4/volumes')).body.results).toBe(1);
  });

  it('reset: covers tables the code does not list (read from the database itself)', async () => {
    await sql`create table zz_other_area (id integer primary key, account_id integer not null, v text)`.execute(
      t.ctx.db.db,
    );
    await sql`insert into zz_other_area (id, account_id, v) values (1, ${t.admin.accountId}, 'x')`.execute(
      t.ctx.db.db,
    );
    const r = await op(t, token).post('/_stratus/reset');
    expect(r.status, r.text).toBe(200);
    const left = await sql<{ n: number }>`select count(*) as n from zz_other_area`.execute(
      t.ctx.db.db,
    );
    expect(Number(left.rows[0]?.n)).toBe(0);
  });

  it('reset: a failure part-way leaves every row in place (one transaction)', async () => {
    await createVolume(t, 'keep');
    // A table whose rows cannot be deleted makes the reset fail after other tables were emptied.
    await sql`create table zz_guard (id integer primary key, account_id integer)`.execute(
      t.ctx.db.db,
    );
    await sql`insert into zz_guard (id, account_id) values (1, 1)`.execute(t.ctx.db.db);
    if (t.ctx.db.dialect === 'postgres') {
      await sql`create function zz_refuse() returns trigger language plpgsql as $$ begin raise exception 'no'; end $$`.execute(
        t.ctx.db.db,
      );
      await sql`create trigger zz_refuse before delete on zz_guard for each row execute function zz_refuse()`.execute(
        t.ctx.db.db,
      );
    } else {
      await sql`create trigger zz_refuse before delete on zz_guard begin select raise(abort, 'no'); end`.execute(
        t.ctx.db.db,
      );
    }
    const r = await op(t, token).post('/_stratus/reset');
    expect(r.status).toBe(500);
    expect((await t.get('/v4/volumes')).body.results).toBe(1);
    expect((await t.get('/v4/profile')).status).toBe(200);
  });
});
