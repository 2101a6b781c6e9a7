import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/lib/time.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { entityRefs, type NewEvent } from '../../../src/modules/events/events.types.js';
import { createTestUser } from '../../helpers/auth.js';
import { recordEvent } from '../../helpers/events.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const DAY = 86_400_000;

describe('events', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const record = (e: Partial<NewEvent> = {}): Promise<number> => recordEvent(t, e);
  const listIds = async (opts: { token?: string; filter?: unknown } = {}): Promise<number[]> => {
    const r = await t.get('/v4/account/events', opts);
    expect(r.status).toBe(200);
    return r.body.data.map((e: { id: number }) => e.id);
  };

  it("getEvent: answers the reference Event shape, with the wire's disk type, empty message and details", async () => {
    const id = await record({
      action: 'disk_create',
      status: 'scheduled',
      secondaryEntity: entityRefs.disk(1, 7, 'boot'),
    });
    const r = await t.get(`/v4/account/events/${id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id,
      action: 'disk_create',
      created: '2026-03-01T12:00:00',
      duration: null,
      entity: { id: 1, type: 'compute', label: 'web-1', url: '/v4/compute/instances/1' },
      secondary_entity: {
        id: 7,
        type: 'disk',
        label: 'boot',
        url: '/v4/compute/instances/1/disks/7',
      },
      message: '',
      percent_complete: null,
      rate: null,
      read: false,
      seen: false,
      status: 'scheduled',
      time_remaining: null,
      username: 'owner',
      details: {},
    });
  });

  it('getEvent: time_remaining in whole seconds is an integer, as on the wire', async () => {
    const id = await record({ action: 'compute_migrate', status: 'started', timeRemaining: 90 });
    const r = await t.get(`/v4/account/events/${id}`);
    expect(r.body.time_remaining).toBe(90);
  });

  it('getEvent: an event without an entity has entity and secondary_entity null', async () => {
    const id = await record({
      action: 'account_update',
      entity: null,
      status: 'notification',
      username: null,
      message: 'Account updated',
    });
    const r = await t.get(`/v4/account/events/${id}`);
    expect(r.body).toMatchObject({
      entity: null,
      secondary_entity: null,
      username: null,
      message: 'Account updated',
      status: 'notification',
      duration: 0,
    });
    const account = await record({
      action: 'account_settings_update',
      entity: entityRefs.account(t.admin.euuid),
    });
    expect((await t.get(`/v4/account/events/${account}`)).body.entity).toEqual({
      id: null,
      type: 'account',
      label: t.admin.euuid,
      url: '/v4/account',
    });
  });

  it('updateEvent: scheduled → started → finished, percent rising, duration from the start', async () => {
    const id = await record({ action: 'compute_create', status: 'scheduled' });
    const get = async () => (await t.get(`/v4/account/events/${id}`)).body;
    t.clock.advance(2_000);
    await t.ctx.events.update(t.ctx.db, id, { status: 'started', percentComplete: 0 });
    expect(await get()).toMatchObject({ status: 'started', percent_complete: 0, duration: null });
    t.clock.advance(3_000);
    // Progress steps repeat the status: the start time must not move.
    await t.ctx.events.update(t.ctx.db, id, {
      status: 'started',
      percentComplete: 40,
      timeRemaining: '00:00:05',
    });
    expect(await get()).toMatchObject({
      status: 'started',
      percent_complete: 40,
      time_remaining: '00:00:05',
      duration: null,
    });
    t.clock.advance(4_500);
    await t.ctx.events.update(t.ctx.db, id, { percentComplete: 80 });
    t.clock.advance(1_000);
    await t.ctx.events.update(t.ctx.db, id, { status: 'finished' });
    expect(await get()).toMatchObject({
      status: 'finished',
      percent_complete: 100,
      time_remaining: null,
      duration: 8.5,
      created: '2026-03-01T12:00:00',
    });
  });

  it('updateEvent: a failed event keeps its progress and gets a message and a duration', async () => {
    const id = await record({ action: 'compute_resize', status: 'started' });
    t.clock.advance(1_000);
    await t.ctx.events.update(t.ctx.db, id, { percentComplete: 30 });
    t.clock.advance(2_250);
    await t.ctx.events.update(t.ctx.db, id, { status: 'failed', message: 'Out of capacity' });
    const r = await t.get(`/v4/account/events/${id}`);
    expect(r.body).toMatchObject({
      status: 'failed',
      percent_complete: 30,
      message: 'Out of capacity',
      duration: 3.3,
    });
  });

  it('updateEvent: an event finished without starting counts from its creation', async () => {
    const id = await record({ action: 'compute_delete', status: 'scheduled' });
    t.clock.advance(6_000);
    await t.ctx.events.update(t.ctx.db, id, { status: 'finished' });
    expect((await t.get(`/v4/account/events/${id}`)).body.duration).toBe(6);
  });

  it('getEvents: newest first by default', async () => {
    const a = await record();
    t.clock.advance(1_000);
    const b = await record({ action: 'compute_reboot' });
    t.clock.advance(1_000);
    const c = await record({ action: 'compute_shutdown' });
    const r = await t.get('/v4/account/events');
    expect(r.body).toMatchObject({ page: 1, pages: 1, results: 3 });
    expect(r.body.data.map((e: { id: number }) => e.id)).toEqual([c, b, a]);
    expect(await listIds({ filter: { '+order_by': 'created', '+order': 'asc' } })).toEqual([
      a,
      b,
      c,
    ]);
    expect(await listIds({ filter: { '+order_by': 'id', '+order': 'asc' } })).toEqual([a, b, c]);
    const paged = await t.get('/v4/account/events?page=2&page_size=25');
    expect(paged.body).toMatchObject({ data: [], page: 2, pages: 1, results: 3 });
  });

  it('getEvents: lists and shows only the last 90 days', async () => {
    const old = await record({ action: 'compute_create' });
    t.clock.advance(2 * DAY);
    const recent = await record({ action: 'compute_boot' });
    t.clock.advance(89 * DAY);
    expect(await listIds()).toEqual([recent]);
    expect((await t.get(`/v4/account/events/${old}`)).status).toBe(404);
    expect((await t.post(`/v4/account/events/${old}/read`)).status).toBe(404);
    expect((await t.get(`/v4/account/events/${recent}`)).status).toBe(200);
    expect(await listIds({ filter: { id: old } })).toEqual([]);
    t.clock.advance(2 * DAY);
    expect(await listIds()).toEqual([]);
    expect((await t.get(`/v4/account/events/${recent}`)).status).toBe(404);
  });

  it('getEvent: an unknown id, a bad id and another account are 404', async () => {
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'b@example.com',
      username: 'other',
    });
    const theirs = await record({ accountId: other.accountId, username: 'other' });
    expect((await t.get(`/v4/account/events/${theirs}`)).status).toBe(404);
    expect((await t.get('/v4/account/events/999999')).status).toBe(404);
    expect((await t.get('/v4/account/events/abc')).status).toBe(404);
    expect(await listIds()).toEqual([]);
    expect(await listIds({ token: other.token })).toEqual([theirs]);
  });

  it('eventRead: marks only that event read', async () => {
    const [a, b, c] = [await record(), await record(), await record()];
    const r = await t.post(`/v4/account/events/${b}/read`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    const list = (await t.get('/v4/account/events')).body.data;
    expect(list.map((e: any) => [e.id, e.read, e.seen])).toEqual([
      [c, false, false],
      [b, true, false],
      [a, false, false],
    ]);
    // Idempotent.
    expect((await t.post(`/v4/account/events/${b}/read`)).status).toBe(200);
  });

  it('eventSeen: marks every event up to and including the id seen, none after', async () => {
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'b@example.com',
      username: 'other',
    });
    const a = await record();
    const theirs = await record({ accountId: other.accountId, username: 'other' });
    const b = await record();
    const c = await record();
    const d = await record();
    const r = await t.post(`/v4/account/events/${c}/seen`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    const list = (await t.get('/v4/account/events')).body.data;
    expect(list.map((e: any) => [e.id, e.seen, e.read])).toEqual([
      [d, false, false],
      [c, true, false],
      [b, true, false],
      [a, true, false],
    ]);
    // Another account's events are left alone.
    const row = await t.ctx.db.db
      .selectFrom('events')
      .select('seen')
      .where('id', '=', theirs)
      .executeTakeFirstOrThrow();
    expect(row.seen).toBe(0);
    expect(await listIds({ filter: { '+order_by': 'id' } })).toEqual([a, b, c, d]);
  });

  it('eventRead/eventSeen: another account’s event is 404 and stays unchanged', async () => {
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'b@example.com',
      username: 'other',
    });
    const theirs = await record({ accountId: other.accountId, username: 'other' });
    expect((await t.post(`/v4/account/events/${theirs}/read`)).status).toBe(404);
    expect((await t.post(`/v4/account/events/${theirs}/seen`)).body).toEqual({
      errors: [{ reason: 'Not found' }],
    });
    const seen = (await t.get(`/v4/account/events/${theirs}`, { token: other.token })).body;
    expect(seen).toMatchObject({ read: false, seen: false });
  });

  it('getEvents: filters on read, action, entity.id, entity.type, created and id', async () => {
    const a = await record({ action: 'compute_create', entity: entityRefs.compute(1, 'a') });
    t.clock.advance(60_000);
    const b = await record({ action: 'compute_boot', entity: entityRefs.compute(2, 'b') });
    t.clock.advance(60_000);
    const c = await record({ action: 'volume_create', entity: entityRefs.volume(1, 'v') });
    const d = await record({ action: 'account_update', entity: null });
    await t.post(`/v4/account/events/${b}/read`);

    expect(await listIds({ filter: { read: true } })).toEqual([b]);
    expect(await listIds({ filter: { read: false } })).toEqual([d, c, a]);
    expect(await listIds({ filter: { action: 'compute_create' } })).toEqual([a]);
    expect(await listIds({ filter: { action: { '+contains': 'CREATE' } } })).toEqual([c, a]);
    expect(await listIds({ filter: { 'entity.id': 1 } })).toEqual([c, a]);
    expect(await listIds({ filter: { 'entity.type': 'compute' } })).toEqual([b, a]);
    expect(await listIds({ filter: { 'entity.id': 1, 'entity.type': 'compute' } })).toEqual([a]);
    expect(await listIds({ filter: { 'entity.type': null } })).toEqual([d]);
    expect(await listIds({ filter: { 'entity.type': { '+neq': 'compute' } } })).toEqual([d, c]);
    expect(await listIds({ filter: { created: { '+gte': '2026-03-01T12:01:00' } } })).toEqual([
      d,
      c,
      b,
    ]);
    expect(await listIds({ filter: { created: { '+lt': '2026-03-01T12:01:00' } } })).toEqual([a]);
    expect(await listIds({ filter: { id: { '+gt': b } } })).toEqual([d, c]);
    expect(await listIds({ filter: { id: { '+lte': b }, '+order_by': 'id' } })).toEqual([a, b]);
    expect(
      await listIds({
        filter: { '+or': [{ action: 'compute_boot' }, { 'entity.type': 'volume' }] },
      }),
    ).toEqual([c, b]);
  });

  it('getEvents: the filters real clients send (peers §3.3) work', async () => {
    const before = await record({
      action: 'compute_boot',
      entity: entityRefs.compute(82372564, 'web'),
    });
    t.clock.advance(5_000);
    const minStart = isoSeconds(t.clock.nowMs());
    const first = await record({
      action: 'compute_boot',
      entity: entityRefs.compute(82372564, 'web'),
    });
    t.clock.advance(1_000);
    await record({ action: 'compute_reboot', entity: entityRefs.compute(82372564, 'web') });
    await record({ action: 'compute_boot', entity: entityRefs.compute(5, 'other') });
    t.clock.advance(1_000);
    const second = await record({
      action: 'compute_boot',
      entity: entityRefs.compute(82372564, 'web'),
    });

    const poll = {
      '+order': 'desc',
      '+order_by': 'created',
      action: 'compute_boot',
      created: { '+gte': minStart },
      'entity.id': 82372564,
      'entity.type': 'compute',
      id: { '+gte': first },
    };
    expect(await listIds({ filter: poll })).toEqual([second, first]);
    // The header exactly as the official Go client writes it (keys sorted, no spaces).
    const r = await t.get('/v4/account/events', {
      filter: `{"+order":"desc","+order_by":"created","action":"compute_boot","created":{"+gte":"${minStart}"},"entity.id":82372564,"entity.type":"compute","id":{"+gte":1114627696}}`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ data: [], results: 0 });
    expect(
      await listIds({
        filter: { action: 'compute_boot', 'entity.id': 82372564, 'entity.type': 'compute' },
      }),
    ).toEqual([second, first, before]);
    // The Python poller orders ascending.
    expect(
      await listIds({ filter: { '+order': 'asc', '+order_by': 'created', 'entity.id': 5 } }),
    ).toHaveLength(1);
    // An entity id beyond 32 bits matches nothing (no 500 on PostgreSQL).
    expect(await listIds({ filter: { 'entity.id': 3_000_000_000 } })).toEqual([]);
  });

  it('getEvents: a bad X-Filter is a 400 on X-Filter', async () => {
    await record();
    const cases: [unknown, string][] = [
      [{ status: 'finished' }, 'Cannot filter on status'],
      [{ 'entity.label': 'web' }, 'Cannot filter on entity.label'],
      [{ '+order': 'desc' }, '+order requires +order_by'],
      ['{"read":', 'X-Filter must be a JSON object'],
      ['[1]', 'X-Filter must be a JSON object'],
    ];
    for (const [filter, reason] of cases) {
      const r = await t.get('/v4/account/events', { filter });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ errors: [{ reason, field: 'X-Filter' }] });
    }
    for (const filter of [{ read: 'yes' }, { id: 'x' }, { created: { '+gte': 'soon' } }]) {
      const r = await t.get('/v4/account/events', { filter });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('X-Filter');
    }
  });

  describe('a restricted user', () => {
    const setup = async (global: { account_access?: 'read_only' | 'read_write' | null } = {}) => {
      const user = await createTestUser(t, {
        global,
        grants: [
          { type: 'compute', id: 1, permissions: 'read_only' },
          { type: 'volume', id: 3, permissions: 'read_write' },
        ],
      });
      const ids = {
        compute1: await record({ entity: entityRefs.compute(1, 'mine') }),
        compute2: await record({ entity: entityRefs.compute(2, 'not mine') }),
        volume3: await record({ action: 'volume_create', entity: entityRefs.volume(3, 'v3') }),
        // A grant on compute 3 is not a grant on volume 3.
        compute3: await record({ entity: entityRefs.compute(3, 'c3') }),
        ownToken: await record({
          action: 'token_create',
          entity: entityRefs.token(50, 'mine'),
          username: user.username,
        }),
        ownKey: await record({
          action: 'user_ssh_key_add',
          entity: entityRefs.sshKey(51, 'key'),
          username: user.username,
        }),
        ownUser: await record({
          action: 'user_update',
          entity: entityRefs.user(user.userId, user.username),
          username: user.username,
        }),
        ownerToken: await record({ action: 'token_create', entity: entityRefs.token(52, 'owner') }),
        account: await record({
          action: 'account_update',
          entity: entityRefs.account(t.admin.euuid),
        }),
        noEntity: await record({ action: 'payment_submitted', entity: null }),
        objKey: await record({
          action: 'oauth_client_create',
          entity: { type: 'oauth_client', id: 9, label: 'k', url: null },
        }),
      };
      return { user, ids };
    };

    it('getEvents: sees events of granted entities and its own profile events only', async () => {
      const { user, ids } = await setup();
      const visible = [ids.compute1, ids.volume3, ids.ownToken, ids.ownKey, ids.ownUser];
      expect(await listIds({ token: user.token, filter: { '+order_by': 'id' } })).toEqual(visible);
      expect(
        await listIds({
          token: user.token,
          filter: { 'entity.type': 'compute', '+order_by': 'id' },
        }),
      ).toEqual([ids.compute1]);
      const hiddenIds = [ids.compute2, ids.compute3, ids.ownerToken, ids.account, ids.noEntity];
      for (const hidden of [...hiddenIds, ids.objKey]) {
        expect((await t.get(`/v4/account/events/${hidden}`, { token: user.token })).status).toBe(
          404,
        );
        expect(
          (await t.post(`/v4/account/events/${hidden}/read`, undefined, { token: user.token }))
            .status,
        ).toBe(404);
      }
      expect(
        (await t.get(`/v4/account/events/${ids.compute1}`, { token: user.token })).status,
      ).toBe(200);
      // The unrestricted owner sees everything.
      expect(await listIds()).toHaveLength(Object.keys(ids).length);
    });

    it('getEvents: sees account events only with global account_access', async () => {
      const { user, ids } = await setup({ account_access: 'read_only' });
      expect(await listIds({ token: user.token, filter: { '+order_by': 'id' } })).toEqual([
        ids.compute1,
        ids.volume3,
        ids.ownToken,
        ids.ownKey,
        ids.ownUser,
        ids.account,
        ids.noEntity,
        ids.objKey,
      ]);
      // Other users' profile events stay hidden.
      expect(
        (await t.get(`/v4/account/events/${ids.ownerToken}`, { token: user.token })).status,
      ).toBe(404);
    });

    it('eventSeen: marks only the events the user can see', async () => {
      const { user, ids } = await setup();
      const r = await t.post(`/v4/account/events/${ids.ownUser}/seen`, undefined, {
        token: user.token,
      });
      expect(r.status).toBe(200);
      const seen = (await t.get('/v4/account/events', { filter: { '+order_by': 'id' } })).body.data
        .filter((e: any) => e.seen)
        .map((e: any) => e.id);
      expect(seen).toEqual([ids.compute1, ids.volume3, ids.ownToken, ids.ownKey, ids.ownUser]);
      expect(
        (await t.post(`/v4/account/events/${ids.account}/seen`, undefined, { token: user.token }))
          .status,
      ).toBe(404);
    });
  });
});
