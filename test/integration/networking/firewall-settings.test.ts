import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from '../controls/helpers.js';
import { nodebalancer } from '../nodebalancers/fixtures.js';
import { eventsOf, fieldsOf, firewall, instance, RULES } from './fixtures.js';

const NONE = { compute: null, nodebalancer: null, public_interface: null, vpc_interface: null };

/** The newer firewall features: the rules history, default firewalls (settings), templates. */
describe('firewall history, settings and templates', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const devices = async (id: number) =>
    (await t.get(`/v4/networking/firewalls/${id}/devices`)).body.data.map(
      (d: { entity: { type: string; id: number } }) => [d.entity.type, d.entity.id],
    );

  it('getFirewallRuleVersions: every change of the rules is a version, kept with its rules, status and time', async () => {
    const fw = await firewall(t);
    t.clock.advance(60_000);
    const next = {
      inbound: [
        {
          protocol: 'TCP',
          ports: '80',
          addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['ff00::/8'] },
          action: 'ACCEPT',
          label: 'really-cool-rule',
          description: 'A really cool firewall rule.',
        },
      ],
      inbound_policy: 'ACCEPT',
      outbound: [],
      outbound_policy: 'DROP',
    };
    const put = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, next);
    expect(put.status).toBe(200);
    await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'disabled' });
    t.clock.advance(60_000);
    const third = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, { inbound: [] });
    expect(third.body.version).toBe(3);

    const h = await t.get(`/v4/networking/firewalls/${fw.id}/history`);
    expect(h.status).toBe(200);
    expect(h.body).toEqual({
      data: [
        { updated: '2026-03-01T12:00:00', status: 'enabled', rules: { version: 1 } },
        { updated: '2026-03-01T12:01:00', status: 'enabled', rules: { version: 2 } },
        { updated: '2026-03-01T12:02:00', status: 'disabled', rules: { version: 3 } },
      ],
      page: 1,
      pages: 1,
      results: 3,
    });
    const v1 = await t.get(`/v4/networking/firewalls/${fw.id}/history/rules/1`);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({
      ...RULES,
      version: 1,
      fingerprint: fw.rules.fingerprint,
    });
    const v2 = await t.get(`/v4/networking/firewalls/${fw.id}/history/rules/2`);
    expect(v2.body).toEqual({ ...put.body });
    expect(v2.body.inbound[0].description).toBe('A really cool firewall rule.');
    // The current rules are the newest version.
    const v3 = await t.get(`/v4/networking/firewalls/${fw.id}/history/rules/3`);
    expect(v3.body).toEqual((await t.get(`/v4/networking/firewalls/${fw.id}/rules`)).body);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/history/rules/4`)).status).toBe(404);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/history/rules/0`)).status).toBe(404);
    // A refused change of the rules makes no version.
    const bad = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      inbound: [
        { protocol: 'TCP', ports: '99999', addresses: { ipv4: ['0.0.0.0/0'] }, action: 'ACCEPT' },
      ],
    });
    expect(bad.status).toBe(400);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/history`)).body.results).toBe(3);
    expect((await eventsOf(t, 'firewall', fw.id)).map((e) => e.action)).toEqual([
      'firewall_create',
      'firewall_rules_update',
      'firewall_disable',
      'firewall_rules_update',
    ]);
  });

  it('updateFirewallRules: the same rules and policies again make no new version', async () => {
    const fw = await firewall(t);
    const body = {
      inbound: [
        {
          action: 'ACCEPT',
          addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['ff00::/8'] },
          description: 'A really cool firewall rule.',
          label: 'really-cool-firewall-rule',
          ports: '80',
          protocol: 'TCP',
        },
      ],
      inbound_policy: 'ACCEPT',
      outbound: [],
      outbound_policy: 'DROP',
    };
    const first = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, body);
    expect(first.status).toBe(200);
    const again = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body.version).toBe(2);
    const history = await t.get(`/v4/networking/firewalls/${fw.id}/history`);
    expect(history.body.results).toBe(2);
    // A change of a policy alone is a change.
    const policy = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      ...body,
      outbound_policy: 'ACCEPT',
    });
    expect(policy.body.version).toBe(3);
  });

  it('getFirewallRuleVersions: needs a grant on the firewall; another account\u2019s firewall is not found; a deleted firewall\u2019s history goes with it', async () => {
    const fw = await firewall(t);
    const none = await createTestUser(t);
    expect(
      (await t.get(`/v4/networking/firewalls/${fw.id}/history`, { token: none.token })).status,
    ).toBe(404);
    const ro = await createTestUser(t, {
      grants: [{ type: 'firewall', id: fw.id, permissions: 'read_only' }],
    });
    expect(
      (await t.get(`/v4/networking/firewalls/${fw.id}/history/rules/1`, { token: ro.token }))
        .status,
    ).toBe(200);
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other',
    });
    expect(
      (await t.get(`/v4/networking/firewalls/${fw.id}/history`, { token: other.token })).status,
    ).toBe(404);
    expect((await t.del(`/v4/networking/firewalls/${fw.id}`)).status).toBe(200);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/history`)).status).toBe(404);
    const left = await t.ctx.db.db
      .selectFrom('firewall_rule_versions')
      .select('id')
      .where('firewall_id', '=', fw.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('getFirewallSettings: no defaults at first; updateFirewallSettings sets the kinds named, keeps the others and clears with null', async () => {
    const get = await t.get('/v4/networking/firewalls/settings');
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ default_firewall_ids: NONE });
    const a = await firewall(t);
    const b = await firewall(t);
    const put = await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { compute: a.id, public_interface: b.id, vpc_interface: b.id },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const want = { ...NONE, compute: a.id, public_interface: b.id, vpc_interface: b.id };
    expect(put.body).toEqual({ default_firewall_ids: want });
    const part = await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { nodebalancer: a.id, vpc_interface: null },
    });
    expect(part.body.default_firewall_ids).toEqual({
      ...want,
      nodebalancer: a.id,
      vpc_interface: null,
    });
    expect((await t.get('/v4/networking/firewalls/settings')).body).toEqual(part.body);
    // An empty body changes nothing.
    expect((await t.put('/v4/networking/firewalls/settings', {})).body).toEqual(part.body);
  });

  it('updateFirewallSettings: a firewall that is not the account\u2019s is a 400 naming the kind, and nothing changes', async () => {
    const a = await firewall(t);
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other',
    });
    const theirs = await firewall(t, {}, other.token);
    const r = await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { compute: a.id, nodebalancer: theirs.id, vpc_interface: 999999 },
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual([
      'default_firewall_ids.nodebalancer',
      'default_firewall_ids.vpc_interface',
    ]);
    expect((await t.get('/v4/networking/firewalls/settings')).body).toEqual({
      default_firewall_ids: NONE,
    });
    const typed = await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { compute: 'abc' },
    });
    expect(typed.status).toBe(400);
    // Settings are per account.
    expect((await t.get('/v4/networking/firewalls/settings', { token: other.token })).body).toEqual(
      { default_firewall_ids: NONE },
    );
  });

  it('updateFirewallSettings: account access is needed (read_only to view, read_write to change); the token needs firewall scopes', async () => {
    const a = await firewall(t);
    const none = await createTestUser(t);
    expect((await t.get('/v4/networking/firewalls/settings', { token: none.token })).status).toBe(
      403,
    );
    const ro = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect((await t.get('/v4/networking/firewalls/settings', { token: ro.token })).status).toBe(
      200,
    );
    const body = { default_firewall_ids: { compute: a.id } };
    expect(
      (await t.put('/v4/networking/firewalls/settings', body, { token: ro.token })).status,
    ).toBe(403);
    const rw = await createTestUser(t, { global: { account_access: 'read_write' } });
    expect(
      (await t.put('/v4/networking/firewalls/settings', body, { token: rw.token })).status,
    ).toBe(200);
    const scoped = await createTestUser(t, { restricted: false, scopes: 'firewall:read_only' });
    expect((await t.get('/v4/networking/firewalls/settings', { token: scoped.token })).status).toBe(
      200,
    );
    expect(
      (await t.put('/v4/networking/firewalls/settings', body, { token: scoped.token })).status,
    ).toBe(401);
  });

  it('createComputeInstance: with no firewall_id the default instance firewall is assigned; a named one wins', async () => {
    const plain = await instance(t);
    const def = await firewall(t);
    const named = await firewall(t);
    await t.put('/v4/networking/firewalls/settings', { default_firewall_ids: { compute: def.id } });
    const auto = await instance(t);
    const chosen = await instance(t, { extra: { firewall_id: named.id } });
    const nulled = await instance(t, { extra: { firewall_id: null } });
    expect(await devices(def.id)).toEqual([
      ['compute', auto.id],
      ['compute', nulled.id],
    ]);
    expect(await devices(named.id)).toEqual([['compute', chosen.id]]);
    expect((await t.get(`/v4/compute/instances/${plain.id}/firewalls`)).body.results).toBe(0);
    const evs = await eventsOf(t, 'firewall', def.id);
    expect(
      evs.filter((e) => e.action === 'firewall_device_add').map((e) => e.secondary_entity?.id),
    ).toEqual([auto.id, nulled.id]);
  });

  it('createComputeInstance: the default firewall is assigned even when the restricted creator has no grant on it', async () => {
    const def = await firewall(t);
    await t.put('/v4/networking/firewalls/settings', { default_firewall_ids: { compute: def.id } });
    const u = await createTestUser(t, { global: { add_computes: true } });
    const inst = await instance(t, { token: u.token });
    expect(await devices(def.id)).toEqual([['compute', inst.id]]);
  });

  it('createComputeInstance (compute generation): interfaces without firewall_id take the public/VPC interface default; null means none; no instance default', async () => {
    const inst = await firewall(t);
    const pub = await firewall(t);
    await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { compute: inst.id, public_interface: pub.id },
    });
    const create = (interfaces: unknown[]) =>
      t.post('/v4/compute/instances', {
        region: 'us-east',
        type: 'g6-nanode-1',
        booted: false,
        interface_generation: 'compute',
        interfaces,
      });
    const auto = await create([{ public: {} }]);
    expect(auto.status).toBe(200);
    const none = await create([{ public: {}, firewall_id: null }]);
    expect(none.status).toBe(200);
    const ifaces = async (id: number) =>
      (await t.get(`/v4/compute/instances/${id}/interfaces`)).body.interfaces as { id: number }[];
    const [autoIface] = await ifaces(auto.body.id);
    const [noneIface] = await ifaces(none.body.id);
    expect(await devices(pub.id)).toEqual([['compute_interface', autoIface?.id]]);
    expect(
      (await t.get(`/v4/compute/instances/${none.body.id}/interfaces/${noneIface?.id}/firewalls`))
        .body.results,
    ).toBe(0);
    // The instance default is for instances of the legacy generation only.
    expect(await devices(inst.id)).toEqual([]);
  });

  it('createNodeBalancer: with no firewall_id the default NodeBalancer firewall is assigned', async () => {
    const def = await firewall(t);
    await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { nodebalancer: def.id },
    });
    const nb = await nodebalancer(t);
    expect(await devices(def.id)).toEqual([['nodebalancer', nb.id]]);
    // The instance default is another kind: an instance gets none.
    const inst = await instance(t);
    expect((await t.get(`/v4/compute/instances/${inst.id}/firewalls`)).body.results).toBe(0);
  });

  it('deleteFirewall: a default firewall cannot be deleted until the settings name another', async () => {
    const def = await firewall(t);
    await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { public_interface: def.id },
    });
    const r = await t.del(`/v4/networking/firewalls/${def.id}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/default firewall \(public_interface\)/);
    expect((await t.get(`/v4/networking/firewalls/${def.id}`)).status).toBe(200);
    await t.put('/v4/networking/firewalls/settings', {
      default_firewall_ids: { public_interface: null },
    });
    expect((await t.del(`/v4/networking/firewalls/${def.id}`)).status).toBe(200);
  });

  it('getFirewallTemplates: the public and vpc templates; a template\u2019s rules create a firewall', async () => {
    const list = await t.get('/v4/networking/firewalls/templates');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(list.body.data.map((x: { slug: string }) => x.slug)).toEqual(['vpc', 'public']);
    const pub = await t.get('/v4/networking/firewalls/templates/public');
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual(list.body.data[1]);
    expect(pub.body.rules).toMatchObject({
      inbound_policy: 'DROP',
      outbound_policy: 'ACCEPT',
      outbound: [],
    });
    expect(pub.body.rules.inbound.map((r: { protocol: string }) => r.protocol)).toEqual([
      'TCP',
      'ICMP',
    ]);
    const vpc = await t.get('/v4/networking/firewalls/templates/vpc');
    expect(vpc.body.rules.inbound.map((r: { protocol: string }) => r.protocol)).toEqual([
      'TCP',
      'ICMP',
      'TCP',
      'UDP',
    ]);
    expect(vpc.body.rules.inbound[2]).toEqual({
      protocol: 'TCP',
      addresses: { ipv4: ['10.0.0.0/8', '192.168.0.0/17', '172.16.0.0/12'] },
      action: 'ACCEPT',
      label: 'accept-inbound-rfc1918',
      ports: '1-65535',
      description: 'Accept inbound RFC-1918',
    });
    expect((await t.get('/v4/networking/firewalls/templates/nope')).status).toBe(404);
    for (const tpl of list.body.data) {
      const fw = await t.post('/v4/networking/firewalls', {
        label: `from-${tpl.slug}`,
        rules: tpl.rules,
      });
      expect(fw.status, JSON.stringify(fw.body)).toBe(200);
      const { version: _v, fingerprint: _f, ...rules } = fw.body.rules;
      expect(rules).toEqual(tpl.rules);
    }
    // Any token will do (a restricted user with no grants too).
    const none = await createTestUser(t, { scopes: 'account:read_only' });
    expect((await t.get('/v4/networking/firewalls/templates', { token: none.token })).status).toBe(
      200,
    );
  });

  it('importSnapshot: the rules history, the default firewalls and rule sets come back whole; a reset clears them', async () => {
    const token = await operatorToken(t);
    const fw = await firewall(t);
    await t.put(`/v4/networking/firewalls/${fw.id}/rules`, { inbound: [] });
    await t.put('/v4/networking/firewalls/settings', { default_firewall_ids: { compute: fw.id } });
    const rs = await t.post('/v4/networking/firewalls/rulesets', {
      label: 'snap-rs',
      type: 'outbound',
      rules: [],
    });
    expect(rs.status).toBe(200);
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    const history = (await t.get(`/v4/networking/firewalls/${fw.id}/history`)).body;
    await t.put('/v4/networking/firewalls/settings', { default_firewall_ids: { compute: null } });
    await t.put(`/v4/networking/firewalls/${fw.id}/rules`, { outbound: [] });
    await t.del(`/v4/networking/firewalls/rulesets/${rs.body.id}`);
    const r = await op(t, token).post('/_stratus/snapshot', saved);
    expect(r.status, r.text).toBe(200);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/history`)).body).toEqual(history);
    expect(
      (await t.get('/v4/networking/firewalls/settings')).body.default_firewall_ids.compute,
    ).toBe(fw.id);
    expect(
      (await t.get(`/v4/networking/firewalls/rulesets/${rs.body.id}`)).body.deleted,
    ).toBeNull();
    const reset = await op(t, token).post('/_stratus/reset');
    expect(reset.status, reset.text).toBeLessThan(300);
    const rows = await t.ctx.db.db.selectFrom('firewall_rule_versions').select('id').execute();
    expect(rows).toEqual([]);
    expect(
      await t.ctx.db.db.selectFrom('firewall_settings').select('account_id').execute(),
    ).toEqual([]);
    expect(await t.ctx.db.db.selectFrom('firewall_rulesets').select('id').execute()).toEqual([]);
  });
});
