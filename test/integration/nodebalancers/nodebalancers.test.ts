import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EntityType } from '../../../src/entities/entities.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { backend, nbEvents, nodebalancer } from './fixtures.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field).sort();

describe('nodebalancers', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createNodeBalancer: a public IPv4 from the region pool, an IPv6 address, a default label, an event', async () => {
    const nb = await nodebalancer(t);
    expect(nb).toMatchObject({
      label: `balancer${nb.id}`,
      region: 'us-east',
      client_conn_throttle: 0,
      transfer: { total: 0, out: 0, in: 0 },
      tags: [],
      created: '2026-03-01T12:00:00',
      updated: '2026-03-01T12:00:00',
    });
    expect(nb.ipv4).toMatch(/^198\.1[89]\.\d+\.\d+$/);
    expect(nb.hostname).toBe(`${nb.ipv4.replace(/\./g, '-')}.ip.computeusercontent.com`);
    expect(nb.ipv6).toMatch(/^2001:db8:/);
    const ip = await t.ctx.db.db
      .selectFrom('ip_addresses')
      .selectAll()
      .where('address', '=', nb.ipv4)
      .executeTakeFirstOrThrow();
    expect(ip).toMatchObject({ kind: 'public', region: 'us-east', instance_id: null });
    // The address is not an instance's: it is not listed among the account's addresses.
    const listed = await t.get('/v4/networking/ips');
    expect(listed.body.data.map((a: { address: string }) => a.address)).not.toContain(nb.ipv4);
    const second = await nodebalancer(t, { label: 'second-nb', tags: ['web'] });
    expect(second.ipv4).not.toBe(nb.ipv4);
    expect(second.ipv6).not.toBe(nb.ipv6);
    expect(second.tags).toEqual(['web']);
    expect(await nbEvents(t, nb.id)).toEqual([['nodebalancer_create', 'notification']]);
  });

  it('createNodeBalancer: only in regions with the NodeBalancers capability; a firewall_id is not dropped', async () => {
    const none = await t.post('/v4/nodebalancers', { region: 'eu-south' });
    expect(none.status).toBe(400);
    expect(fieldsOf(none)).toEqual(['region']);
    expect(fieldsOf(await t.post('/v4/nodebalancers', { region: 'mars-1' }))).toEqual(['region']);
    expect(fieldsOf(await t.post('/v4/nodebalancers', {}))).toEqual(['region']);
    const fw = await t.post('/v4/nodebalancers', { region: 'us-east', firewall_id: 1 });
    expect(fw.body.errors).toEqual([{ field: 'firewall_id', reason: 'Firewall not found' }]);
    expect((await t.get('/v4/nodebalancers')).body.results).toBe(0);
  });

  it('createNodeBalancer: label is 3..32 letters, digits, - and _, unique in the account', async () => {
    for (const bad of ['ab', 'x'.repeat(33), 'a b', 'a.b', 'ünï']) {
      const r = await t.post('/v4/nodebalancers', { region: 'us-east', label: bad });
      expect(r.status, bad).toBe(400);
      expect(fieldsOf(r), bad).toEqual(['label']);
    }
    await nodebalancer(t, { label: 'web_lb-1' });
    const dup = await t.post('/v4/nodebalancers', { region: 'us-west', label: 'web_lb-1' });
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([{ field: 'label', reason: 'Label must be unique.' }]);
    // Another account may use the same label.
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'o',
    });
    await nodebalancer(t, { label: 'web_lb-1' }, other.token);
  });

  it('createNodeBalancer: concurrent creates with one label make one NodeBalancer; the others are 400 naming label', async () => {
    const rs = await Promise.all(
      [1, 2, 3].map(() => t.post('/v4/nodebalancers', { region: 'us-east', label: 'same-label' })),
    );
    expect(rs.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    for (const r of rs.filter((x) => x.status === 400)) expect(fieldsOf(r)).toEqual(['label']);
    const nb = rs.find((r) => r.status === 200)?.body;
    const rs2 = await Promise.all(
      [80, 80].map((port) => t.post(`/v4/nodebalancers/${nb.id}/configs`, { port })),
    );
    expect(rs2.map((r) => r.status).sort()).toEqual([200, 400]);
    expect((await t.get(`/v4/nodebalancers/${nb.id}/configs`)).body.results).toBe(1);
  });

  it('createNodeBalancer: client_conn_throttle is 0..20', async () => {
    for (const bad of [-1, 21, 1.5]) {
      const r = await t.post('/v4/nodebalancers', { region: 'us-east', client_conn_throttle: bad });
      expect(fieldsOf(r), String(bad)).toEqual(['client_conn_throttle']);
    }
    expect((await nodebalancer(t, { client_conn_throttle: 20 })) as unknown).toMatchObject({
      client_conn_throttle: 20,
    });
  });

  it('createNodeBalancer, updateNodeBalancer: client_udp_sess_throttle is 0..20 and kept', async () => {
    for (const bad of [-1, 21, 1.5]) {
      const r = await t.post('/v4/nodebalancers', {
        region: 'us-east',
        client_udp_sess_throttle: bad,
      });
      expect(fieldsOf(r), String(bad)).toEqual(['client_udp_sess_throttle']);
    }
    const b = await backend(t);
    const nb = (await nodebalancer(t, {
      client_udp_sess_throttle: 7,
      configs: [{ port: 53, protocol: 'udp', nodes: [{ address: `${b.ip}:53`, label: 'dns-1' }] }],
    })) as unknown as { id: number; client_udp_sess_throttle: number };
    expect(nb.client_udp_sess_throttle).toBe(7);
    const cfgs = await t.get(`/v4/nodebalancers/${nb.id}/configs`);
    expect(cfgs.body.data[0]).toMatchObject({ protocol: 'udp', stickiness: 'session' });
    const r = await t.put(`/v4/nodebalancers/${nb.id}`, { client_udp_sess_throttle: 12 });
    expect(r.body.client_udp_sess_throttle).toBe(12);
    expect((await t.put(`/v4/nodebalancers/${nb.id}`, { label: 'renamed' })).body).toMatchObject({
      client_udp_sess_throttle: 12,
    });
    expect((await t.get(`/v4/nodebalancers/${nb.id}`)).body.client_udp_sess_throttle).toBe(12);
  });

  it('createNodeBalancer: configs and their nodes are created with it', async () => {
    const b = await backend(t);
    const nb = await nodebalancer(t, {
      configs: [
        { port: 80, nodes: [{ address: `${b.ip}:80`, label: 'web-1' }] },
        {
          port: 8080,
          protocol: 'tcp',
          algorithm: 'leastconn',
          nodes: [{ address: `${b.ip}:8080`, label: 'web-2', weight: 10, mode: 'backup' }],
        },
      ],
    });
    const configs = (await t.get(`/v4/nodebalancers/${nb.id}/configs`)).body;
    expect(configs.results).toBe(2);
    expect(
      configs.data.map((c: { port: number; protocol: string }) => [c.port, c.protocol]),
    ).toEqual([
      [80, 'http'],
      [8080, 'tcp'],
    ]);
    const nodes = (await t.get(`/v4/nodebalancers/${nb.id}/configs/${configs.data[1].id}/nodes`))
      .body.data;
    expect(nodes).toEqual([
      {
        id: nodes[0].id,
        address: `${b.ip}:8080`,
        label: 'web-2',
        status: 'UP',
        weight: 10,
        mode: 'backup',
        config_id: configs.data[1].id,
        nodebalancer_id: nb.id,
        vpc_config_id: null,
      },
    ]);
  });

  it('createNodeBalancer: bad configs fail the whole create (ports, nodes, addresses), naming each field', async () => {
    const b = await backend(t);
    const r = await t.post('/v4/nodebalancers', {
      region: 'us-east',
      configs: [
        { port: 80, nodes: [{ address: `${b.ip}:80`, label: 'web-1' }] },
        { port: 80, nodes: [{ address: '10.0.0.1', label: 'web-2' }] },
        { port: 81, nodes: [] },
        {
          port: 82,
          check_interval: 5,
          check_timeout: 5,
          nodes: [{ address: `${b.ip}:1`, label: 'n-1' }],
        },
      ],
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual([
      'configs.1.nodes.0.address',
      'configs.1.port',
      'configs.2.nodes',
      'configs.3.check_interval',
    ]);
    expect((await t.get('/v4/nodebalancers')).body.results).toBe(0);
    const count = await t.ctx.db.db
      .selectFrom('ip_addresses')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('instance_id', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('getNodeBalancer: 404 for an unknown id and for another account', async () => {
    expect((await t.get('/v4/nodebalancers/999')).status).toBe(404);
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'o',
    });
    const theirs = await nodebalancer(t, {}, other.token);
    expect((await t.get(`/v4/nodebalancers/${theirs.id}`)).status).toBe(404);
    expect((await t.put(`/v4/nodebalancers/${theirs.id}`, { label: 'mine' })).status).toBe(404);
    expect((await t.del(`/v4/nodebalancers/${theirs.id}`)).status).toBe(404);
    expect((await t.get('/v4/nodebalancers')).body.results).toBe(0);
  });

  it('grants: add_nodebalancers to create (the creator gets read_write); per-NodeBalancer grants to see and change', async () => {
    const nb = await nodebalancer(t);
    const plain = await createTestUser(t);
    expect(
      (await t.post('/v4/nodebalancers', { region: 'us-east' }, { token: plain.token })).status,
    ).toBe(403);
    expect((await t.get('/v4/nodebalancers', { token: plain.token })).body.results).toBe(0);
    expect((await t.get(`/v4/nodebalancers/${nb.id}`, { token: plain.token })).status).toBe(404);

    const creator = await createTestUser(t, { global: { add_nodebalancers: true } });
    const mine = await nodebalancer(t, {}, creator.token);
    expect(
      (await t.put(`/v4/nodebalancers/${mine.id}`, { label: 'renamed' }, { token: creator.token }))
        .status,
    ).toBe(200);
    const seen = await t.get('/v4/nodebalancers', { token: creator.token });
    expect(seen.body.data.map((x: { id: number }) => x.id)).toEqual([mine.id]);

    const reader = await createTestUser(t, {
      grants: [{ type: 'nodebalancer', id: nb.id, permissions: 'read_only' }],
    });
    expect((await t.get(`/v4/nodebalancers/${nb.id}`, { token: reader.token })).status).toBe(200);
    expect(
      (await t.put(`/v4/nodebalancers/${nb.id}`, { label: 'nope' }, { token: reader.token }))
        .status,
    ).toBe(403);
    expect((await t.del(`/v4/nodebalancers/${nb.id}`, { token: reader.token })).status).toBe(403);
    expect(
      (await t.post(`/v4/nodebalancers/${nb.id}/configs`, {}, { token: reader.token })).status,
    ).toBe(403);

    const grants = await t.get(`/v4/account/users/${reader.username}/grants`);
    expect(grants.body.nodebalancer).toEqual([
      { id: nb.id, label: nb.label, permissions: 'read_only' },
      { id: mine.id, label: 'renamed', permissions: null },
    ]);
  });

  it('nodebalancers: the scopes are nodebalancers:read_only / read_write', async () => {
    const nb = await nodebalancer(t);
    const ro = await createTestUser(t, { restricted: false, scopes: 'nodebalancers:read_only' });
    expect((await t.get(`/v4/nodebalancers/${nb.id}`, { token: ro.token })).status).toBe(200);
    expect(
      (await t.put(`/v4/nodebalancers/${nb.id}`, { label: 'x-y-z' }, { token: ro.token })).status,
    ).toBe(401);
    expect(
      (await t.post('/v4/nodebalancers', { region: 'us-east' }, { token: ro.token })).status,
    ).toBe(401);
  });

  it('updateNodeBalancer: label, client_conn_throttle and tags, with nodebalancer_update', async () => {
    const nb = await nodebalancer(t, { tags: ['old'] });
    await nodebalancer(t, { label: 'taken' });
    t.clock.advance(60_000);
    const r = await t.put(`/v4/nodebalancers/${nb.id}`, {
      label: 'front-1',
      client_conn_throttle: 5,
      tags: ['new'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'front-1',
      client_conn_throttle: 5,
      tags: ['new'],
      ipv4: nb.ipv4,
      updated: '2026-03-01T12:01:00',
    });
    expect(fieldsOf(await t.put(`/v4/nodebalancers/${nb.id}`, { label: 'taken' }))).toEqual([
      'label',
    ]);
    expect((await t.put(`/v4/nodebalancers/${nb.id}`, { label: 'front-1' })).status).toBe(200);
    expect(await nbEvents(t, nb.id)).toEqual([
      ['nodebalancer_create', 'notification'],
      ['nodebalancer_update', 'notification'],
      ['nodebalancer_update', 'notification'],
    ]);
  });

  it('deleteNodeBalancer: configs, nodes, tags and grants go; the address returns to the pool', async () => {
    const b = await backend(t);
    const nb = await nodebalancer(t, {
      tags: ['gone'],
      configs: [{ port: 80, nodes: [{ address: `${b.ip}:80`, label: 'web-1' }] }],
    });
    const r = await t.del(`/v4/nodebalancers/${nb.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get(`/v4/nodebalancers/${nb.id}`)).status).toBe(404);
    for (const table of ['nodebalancer_configs', 'nodebalancer_nodes'] as const) {
      const rows = await t.ctx.db.db.selectFrom(table).selectAll().execute();
      expect(rows, table).toEqual([]);
    }
    expect((await t.get('/v4/tags/gone')).body.results).toBe(0);
    expect((await nodebalancer(t)).ipv4).toBe(nb.ipv4);
    expect((await nbEvents(t, nb.id)).at(-1)).toEqual(['nodebalancer_delete', 'notification']);
  });

  it('getNodeBalancers: X-Filter on label, region, ipv4 and tags', async () => {
    const a = await nodebalancer(t, { label: 'alpha-lb', tags: ['web'] });
    const b = await nodebalancer(t, { label: 'beta-lb', region: 'us-west' });
    const ids = async (filter: unknown) =>
      (await t.get('/v4/nodebalancers', { filter })).body.data.map((x: { id: number }) => x.id);
    expect(await ids({ label: 'alpha-lb' })).toEqual([a.id]);
    expect(await ids({ region: 'us-west' })).toEqual([b.id]);
    expect(await ids({ ipv4: b.ipv4 })).toEqual([b.id]);
    expect(await ids({ tags: 'web' })).toEqual([a.id]);
    expect((await t.get('/v4/nodebalancers', { filter: { hostname: 'x' } })).status).toBe(400);
  });

  it('getComputeNodeBalancers: the NodeBalancers with a node on the instance, that the caller can read', async () => {
    const b1 = await backend(t);
    const b2 = await backend(t);
    const nb1 = await nodebalancer(t, {
      configs: [{ nodes: [{ address: `${b1.ip}:80`, label: 'n-1' }] }],
    });
    const nb2 = await nodebalancer(t, {
      configs: [
        {
          nodes: [
            { address: `${b1.ip}:81`, label: 'n-1' },
            { address: `${b2.ip}:80`, label: 'n-2' },
          ],
        },
      ],
    });
    await nodebalancer(t);
    const ids = async (id: number, token?: string) => {
      const r = await t.get(`/v4/compute/instances/${id}/nodebalancers`, token ? { token } : {});
      expect(r.status).toBe(200);
      return r.body.data.map((x: { id: number }) => x.id);
    };
    expect(await ids(b1.id)).toEqual([nb1.id, nb2.id]);
    expect(await ids(b2.id)).toEqual([nb2.id]);
    const user = await createTestUser(t, {
      grants: [
        { type: 'compute', id: b1.id, permissions: 'read_only' },
        { type: 'nodebalancer', id: nb2.id, permissions: 'read_only' },
      ],
    });
    expect(await ids(b1.id, user.token)).toEqual([nb2.id]);
    expect(
      (await t.get(`/v4/compute/instances/${b2.id}/nodebalancers`, { token: user.token })).status,
    ).toBe(404);
    expect((await t.get('/v4/compute/instances/999/nodebalancers')).status).toBe(404);
  });

  it("getNodeBalancer: the real wire's fields with their not-used values", async () => {
    const nb = await nodebalancer(t);
    expect((await t.get(`/v4/nodebalancers/${nb.id}`)).body).toMatchObject({
      type: 'common',
      client_udp_sess_throttle: 0,
      frontend_address_type: 'public',
      frontend_vpc_subnet_id: null,
      lke_cluster: null,
      locks: [],
    });
  });

  it('getNodeBalancerStats: a new NodeBalancer has none yet (400, the real words)', async () => {
    const nb = await nodebalancer(t);
    const r = await t.get(`/v4/nodebalancers/${nb.id}/stats`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ reason: 'Stats are unavailable at this time.' }] });
    t.clock.advance(5 * 60_000);
    expect((await t.get(`/v4/nodebalancers/${nb.id}/stats`)).status).toBe(200);
  });

  it('getNodeBalancerStats: 5-minute points of the last 24 hours since creation, all 0', async () => {
    const nb = await nodebalancer(t);
    t.clock.advance(16 * 60_000);
    const r = await t.get(`/v4/nodebalancers/${nb.id}/stats`);
    expect(r.status).toBe(200);
    const start = Date.parse('2026-03-01T12:00:00Z');
    const points = [0, 1, 2, 3].map((i) => [start + i * 300_000, 0]);
    expect(r.body).toEqual({
      title: `${nb.label} (${nb.id}) - day (5 min avg)`,
      data: { connections: points, traffic: { in: points, out: points } },
    });
    t.clock.advance(48 * 3600_000);
    const later = await t.get(`/v4/nodebalancers/${nb.id}/stats`);
    expect(later.body.data.connections).toHaveLength(24 * 12);
    expect((await t.get('/v4/nodebalancers/999/stats')).status).toBe(404);
  });

  it('getNodeBalancerFirewalls: an empty page until firewalls exist; 404 for an unknown NodeBalancer', async () => {
    const nb = await nodebalancer(t);
    expect((await t.get(`/v4/nodebalancers/${nb.id}/firewalls`)).body).toEqual({
      data: [],
      page: 1,
      pages: 1,
      results: 0,
    });
    expect((await t.get('/v4/nodebalancers/999/firewalls')).status).toBe(404);
  });
});

describe('nodebalancers: cascades declared for their deletion', () => {
  it('deleteNodeBalancer: runs every onDeleteOf.nodebalancer cascade inside its transaction', async () => {
    const seen: { id: number; label: string }[] = [];
    let fail = false;
    const probe: EntityType = {
      type: 'probe',
      url: (id) => `/v4/probes/${id}`,
      list: async () => [],
      onDeleteOf: {
        nodebalancer: async (db, deleted, ctx) => {
          seen.push({ id: deleted.id, label: deleted.label });
          await ctx.events.record(db, {
            accountId: (
              await db.db
                .selectFrom('nodebalancers')
                .select('account_id')
                .where('id', '=', deleted.id)
                .executeTakeFirstOrThrow()
            ).account_id,
            action: 'firewall_device_remove',
            entity: { type: 'firewall', id: 1, label: 'fw', url: '/v4/networking/firewalls/1' },
            status: 'notification',
            username: null,
          });
          if (fail) throw new Error('cascade failed');
        },
      },
    };
    const t = await buildTestApp({ entities: [probe] });
    try {
      const nb = await nodebalancer(t);
      fail = true;
      expect((await t.del(`/v4/nodebalancers/${nb.id}`)).status).toBe(500);
      expect((await t.get(`/v4/nodebalancers/${nb.id}`)).status).toBe(200);
      const events = async () =>
        (await t.get('/v4/account/events', { filter: { action: 'firewall_device_remove' } })).body
          .results;
      expect(await events()).toBe(0);
      fail = false;
      expect((await t.del(`/v4/nodebalancers/${nb.id}`)).status).toBe(200);
      expect(seen).toEqual([
        { id: nb.id, label: nb.label },
        { id: nb.id, label: nb.label },
      ]);
      expect(await events()).toBe(1);
    } finally {
      await t.close();
    }
  });
});
