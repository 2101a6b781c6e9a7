import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken, secondAccount } from '../controls/helpers.js';
import { instance, volume } from '../volumes/fixtures.js';
import { eventsOf, ticket } from './fixtures.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field ?? null).sort();

describe('support tickets', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createTicket: opens a new, closable ticket on no entity, with a ticket_create event', async () => {
    const r = await t.post('/v4/support/tickets', {
      summary: 'Billing question',
      description: 'Why was I charged twice?',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      summary: 'Billing question',
      description: 'Why was I charged twice?',
      status: 'new',
      closable: true,
      closed: null,
      entity: null,
      attachments: [],
      opened_by: 'owner',
      updated_by: 'owner',
      opened: '2026-03-01T12:00:00',
    });
    expect(r.body.gravatar_id).toMatch(/^[0-9a-f]{32}$/);
    const [ev] = await eventsOf(t, 'ticket_create');
    expect(ev).toMatchObject({
      status: 'notification',
      username: 'owner',
      entity: { type: 'ticket', id: r.body.id, label: 'Billing question' },
    });
    expect((await t.get(`/v4/support/tickets/${r.body.id}`)).body).toEqual(r.body);
  });

  it('createTicket: names the entity it is about, with its current label', async () => {
    const inst = await instance(t);
    const r = await ticket(t, { compute_id: inst.id });
    expect((await t.get(`/v4/support/tickets/${r.id}`)).body.entity).toEqual({
      id: inst.id,
      label: inst.label,
      type: 'compute',
      url: `/v4/compute/instances/${inst.id}`,
    });
    expect((await t.put(`/v4/compute/instances/${inst.id}`, { label: 'renamed-1' })).status).toBe(
      200,
    );
    expect((await t.get(`/v4/support/tickets/${r.id}`)).body.entity.label).toBe('renamed-1');
  });

  it('createTicket: null for an optional field means not given', async () => {
    const inst = await instance(t);
    const r = await t.post('/v4/support/tickets', {
      summary: 'Nulls',
      description: 'Unset fields as some SDKs send them',
      compute_id: inst.id,
      volume_id: null,
      domain_id: null,
      vlan: null,
      region: null,
      managed_issue: null,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.entity).toMatchObject({ id: inst.id, type: 'compute' });
  });

  it('createTicket: refuses an entity of another account, more than one entity, region without vlan', async () => {
    const other = await secondAccount(t);
    const theirs = await volume(t, {}, other.token);
    const r1 = await t.post('/v4/support/tickets', {
      summary: 's',
      description: 'd',
      volume_id: theirs.id,
    });
    expect(r1.status).toBe(400);
    expect(fieldsOf(r1)).toEqual(['volume_id']);
    const inst = await instance(t);
    const mine = await volume(t);
    const r2 = await t.post('/v4/support/tickets', {
      summary: 's',
      description: 'd',
      compute_id: inst.id,
      volume_id: mine.id,
    });
    expect(r2.status).toBe(400);
    expect(r2.body.errors[0].reason).toMatch(/Only one of/);
    const r3 = await t.post('/v4/support/tickets', {
      summary: 's',
      description: 'd',
      region: 'us-east',
    });
    expect(r3.status).toBe(400);
    expect(r3.body.errors).toEqual([
      { field: 'region', reason: 'Region is only allowed when submitting a VLAN ticket.' },
    ]);
    expect((await t.get('/v4/support/tickets')).body.results).toBe(0);
  });

  it('createTicket: a VLAN needs its region and must exist among the instances', async () => {
    const r1 = await t.post('/v4/support/tickets', { summary: 's', description: 'd', vlan: 'v1' });
    expect(fieldsOf(r1)).toEqual(['region']);
    const r2 = await t.post('/v4/support/tickets', {
      summary: 's',
      description: 'd',
      vlan: 'nope',
      region: 'us-east',
    });
    expect(fieldsOf(r2)).toEqual(['vlan']);
  });

  it('createTicket: entities of areas this server does not serve are named in the refusal', async () => {
    const r = await t.post('/v4/support/tickets', {
      summary: 's',
      description: 'd',
      lkecluster_id: 5,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      {
        field: 'lkecluster_id',
        reason: 'The Kubernetes (LKE) area is not provided by this server.',
      },
    ]);
  });

  it('createTicket: summary and description lengths; a Managed issue needs Managed', async () => {
    const r = await t.post('/v4/support/tickets', {
      summary: 'x'.repeat(65),
      description: '   ',
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['description', 'summary']);
    const m = await t.post('/v4/support/tickets', {
      summary: 's',
      description: 'd',
      managed_issue: true,
    });
    expect(fieldsOf(m)).toEqual(['managed_issue']);
  });

  it('createTicket: a restricted user may not name an entity without a grant on it', async () => {
    const inst = await instance(t);
    const u = await createTestUser(t);
    const r = await t.post(
      '/v4/support/tickets',
      { summary: 's', description: 'd', compute_id: inst.id },
      { token: u.token },
    );
    expect(fieldsOf(r)).toEqual(['compute_id']);
    const g = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    const ok = await t.post(
      '/v4/support/tickets',
      { summary: 's', description: 'd', compute_id: inst.id },
      { token: g.token },
    );
    expect(ok.status).toBe(200);
  });

  it('getTickets: restricted users see only the tickets they opened; unrestricted users see all', async () => {
    const a = await createTestUser(t);
    const b = await createTestUser(t);
    const ta = await ticket(t, { summary: 'from a' }, a.token);
    await ticket(t, { summary: 'from b' }, b.token);
    await ticket(t, { summary: 'from owner' });
    const mine = await t.get('/v4/support/tickets', { token: a.token });
    expect(mine.body.data.map((x: { summary: string }) => x.summary)).toEqual(['from a']);
    expect((await t.get('/v4/support/tickets')).body.results).toBe(3);
    const all = (await t.get('/v4/support/tickets')).body.data as { id: number }[];
    const others = all.filter((x) => x.id !== ta.id);
    for (const x of others) {
      expect((await t.get(`/v4/support/tickets/${x.id}`, { token: a.token })).status).toBe(404);
      expect(
        (
          await t.post(
            `/v4/support/tickets/${x.id}/replies`,
            { description: 'hi' },
            { token: a.token },
          )
        ).status,
      ).toBe(404);
    }
    // Their events follow the tickets: a sees the events of its own ticket only.
    const evs = await eventsOf(t, 'ticket_create', a.token);
    expect(evs.map((e: { entity: { id: number } }) => e.entity.id)).toEqual([ta.id]);
  });

  it('getTickets: open tickets first, then the newest; X-Filter on opened, closed, updated', async () => {
    const one = await ticket(t, { summary: 'one' });
    t.clock.advance(60_000);
    const two = await ticket(t, { summary: 'two' });
    t.clock.advance(60_000);
    const three = await ticket(t, { summary: 'three' });
    expect((await t.post(`/v4/support/tickets/${three.id}/close`)).status).toBe(200);
    const ids = (await t.get('/v4/support/tickets')).body.data.map((x: { id: number }) => x.id);
    expect(ids).toEqual([two.id, one.id, three.id]);
    const closed = await t.get('/v4/support/tickets', {
      filter: { closed: { '+gte': '2026-01-01T00:00:00' } },
    });
    expect(closed.body.data.map((x: { id: number }) => x.id)).toEqual([three.id]);
    const bad = await t.get('/v4/support/tickets', { filter: { summary: 'one' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({ field: 'X-Filter', reason: 'Cannot filter on summary' });
  });

  it('createTicketReply: adds the reply oldest first, marks the ticket updated, event ticket_update', async () => {
    const tk = await ticket(t);
    t.clock.advance(30_000);
    const r = await t.post(`/v4/support/tickets/${tk.id}/replies`, { description: 'Any news?' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      description: 'Any news?',
      created_by: 'owner',
      from_compute: false,
      created: '2026-03-01T12:00:30',
    });
    const replies = await t.get(`/v4/support/tickets/${tk.id}/replies`);
    expect(replies.body).toMatchObject({ results: 1, data: [{ id: r.body.id }] });
    const view = (await t.get(`/v4/support/tickets/${tk.id}`)).body;
    expect(view).toMatchObject({
      status: 'new',
      updated: '2026-03-01T12:00:30',
      updated_by: 'owner',
    });
    expect((await eventsOf(t, 'ticket_update')).length).toBe(1);
    const empty = await t.post(`/v4/support/tickets/${tk.id}/replies`, { description: '' });
    expect(fieldsOf(empty)).toEqual(['description']);
  });

  it('support replies (emulator control): a new ticket becomes open, the reply is from support', async () => {
    const tk = await ticket(t);
    const o = op(t, await operatorToken(t));
    const r = await o.post(`/_stratus/support/tickets/${tk.id}/replies`, {
      description: 'We are on it.',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ from_compute: true, created_by: 'Compute' });
    expect((await t.get(`/v4/support/tickets/${tk.id}`)).body).toMatchObject({
      status: 'open',
      updated_by: 'Compute',
    });
    const opened = await o.post('/_stratus/support/tickets', {
      euuid: (await t.get('/v4/account')).body.euuid,
      summary: 'Abuse report',
      description: 'Your server sent spam.',
    });
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body).toMatchObject({ opened_by: 'Compute', closable: false, status: 'new' });
    const close = await t.post(`/v4/support/tickets/${opened.body.id}/close`);
    expect(close.status).toBe(400);
    expect(close.body.errors[0].reason).toBe('This ticket cannot be closed.');
  });

  it('closeTicket: closes once; a closed ticket takes no replies and is no longer closable', async () => {
    const tk = await ticket(t);
    t.clock.advance(5_000);
    const r = await t.post(`/v4/support/tickets/${tk.id}/close`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get(`/v4/support/tickets/${tk.id}`)).body).toMatchObject({
      status: 'closed',
      closable: false,
      closed: '2026-03-01T12:00:05',
    });
    expect((await t.post(`/v4/support/tickets/${tk.id}/close`)).status).toBe(400);
    const reply = await t.post(`/v4/support/tickets/${tk.id}/replies`, { description: 'hello' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].reason).toBe('This ticket is closed.');
  });

  it('createTicket: two per minute per token (the documented limit)', async () => {
    const rl = await buildTestApp({ rateLimits: true });
    try {
      const body = { summary: 's', description: 'd' };
      expect((await rl.post('/v4/support/tickets', body)).status).toBe(200);
      expect((await rl.post('/v4/support/tickets', body)).status).toBe(200);
      const third = await rl.post('/v4/support/tickets', body);
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toBeDefined();
    } finally {
      await rl.close();
    }
  });

  it('getTicket: another account sees 404; a token without account scopes is refused', async () => {
    const tk = await ticket(t);
    const other = await secondAccount(t);
    expect((await t.get(`/v4/support/tickets/${tk.id}`, { token: other.token })).status).toBe(404);
    const narrow = await createTestUser(t, { restricted: false, scopes: 'volumes:read_only' });
    expect((await t.get('/v4/support/tickets', { token: narrow.token })).status).toBe(401);
  });
});
