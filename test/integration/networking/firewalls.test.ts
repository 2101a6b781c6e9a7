import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventsOf, fieldsOf, firewall, instance, RULES } from './fixtures.js';

const rule = (i: number) => ({
  protocol: 'TCP',
  ports: String(1000 + i),
  addresses: { ipv4: ['192.0.2.0/24'] },
  action: 'ACCEPT',
});
const rules = (n: number) => Array.from({ length: n }, (_, i) => rule(i));

describe('firewalls', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createFirewalls: created enabled with its rules and tags, a firewall_create event; the view has no devices', async () => {
    const r = await t.post('/v4/networking/firewalls', {
      label: 'web-fw',
      rules: RULES,
      tags: ['prod'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: r.body.id,
      label: 'web-fw',
      created: '2026-03-01T12:00:00',
      updated: '2026-03-01T12:00:00',
      status: 'enabled',
      rules: {
        inbound: [
          {
            protocol: 'TCP',
            ports: '22, 80',
            addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
            action: 'ACCEPT',
            label: 'ssh-web',
          },
        ],
        outbound: [],
        inbound_policy: 'DROP',
        outbound_policy: 'ACCEPT',
        version: 1,
        fingerprint: r.body.rules.fingerprint,
      },
      tags: ['prod'],
      entities: [],
    });
    expect(r.body.rules.fingerprint).toMatch(/^[0-9a-f]{8}$/);
    const view = await t.get(`/v4/networking/firewalls/${r.body.id}`);
    expect(view.body).toEqual(r.body);
    expect(view.body.devices).toBeUndefined();
    const evs = await eventsOf(t, 'firewall', r.body.id);
    expect(evs.map((e) => e.action)).toEqual(['firewall_create']);
    expect(evs[0]?.entity).toMatchObject({
      label: 'web-fw',
      url: `/v4/networking/firewalls/${r.body.id}`,
    });
    const list = await t.get('/v4/networking/firewalls');
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1 });
    expect((await t.get('/v4beta/networking/firewalls')).body.results).toBe(1);
  });

  it('createFirewalls: label and rules with both policies are required; the label follows its rules and is unique', async () => {
    expect(fieldsOf(await t.post('/v4/networking/firewalls', {}))).toEqual(['label', 'rules']);
    const noPolicy = await t.post('/v4/networking/firewalls', {
      label: 'abc',
      rules: { inbound: [] },
    });
    expect(noPolicy.status).toBe(400);
    expect(fieldsOf(noPolicy)).toEqual(['rules.inbound_policy', 'rules.outbound_policy']);
    for (const bad of ['ab', '-abc', 'a--b', 'a..b', 'a__b', 'x'.repeat(33), 'a b']) {
      const r = await t.post('/v4/networking/firewalls', { label: bad, rules: RULES });
      expect(r.status, bad).toBe(400);
      expect(fieldsOf(r)).toEqual(['label']);
    }
    await firewall(t, { label: 'same-1' });
    const dup = await t.post('/v4/networking/firewalls', { label: 'same-1', rules: RULES });
    expect(dup.status).toBe(400);
    expect(dup.body.errors[0].reason).toMatch(/unique/);
  });

  it('createFirewalls: at most 25 rules across inbound and outbound; a bad rule names its field', async () => {
    const ok = await t.post('/v4/networking/firewalls', {
      label: 'max-rules',
      rules: { ...RULES, inbound: rules(20), outbound: rules(5) },
    });
    expect(ok.status).toBe(200);
    const over = await t.post('/v4/networking/firewalls', {
      label: 'too-many',
      rules: { ...RULES, inbound: rules(20), outbound: rules(6) },
    });
    expect(over.status).toBe(400);
    expect(fieldsOf(over)).toEqual(['rules']);
    const icmp = await t.post('/v4/networking/firewalls', {
      label: 'icmp-ports',
      rules: { ...RULES, inbound: [{ ...rule(0), protocol: 'ICMP' }] },
    });
    expect(fieldsOf(icmp)).toEqual(['rules.inbound[0].ports']);
    const noAddr = await t.post('/v4/networking/firewalls', {
      label: 'no-addr',
      rules: { ...RULES, inbound: [{ protocol: 'TCP', action: 'ACCEPT' }] },
    });
    expect(noAddr.status).toBe(400);
    expect((await t.get('/v4/networking/firewalls')).body.results).toBe(1);
  });

  it('updateFirewallRules: replaces both rule sets entirely, keeps omitted policies, refuses 26 rules', async () => {
    const fw = await firewall(t, { rules: { ...RULES, outbound: [rule(1)] } });
    const r = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      inbound: [rule(7)],
      inbound_policy: 'ACCEPT',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      inbound: [rule(7)],
      outbound: [],
      inbound_policy: 'ACCEPT',
      outbound_policy: 'ACCEPT',
      version: 2,
      fingerprint: r.body.fingerprint,
    });
    expect(r.body.fingerprint).not.toBe(fw.rules.fingerprint);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/rules`)).body).toEqual(r.body);
    const over = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      inbound: rules(13),
      outbound: rules(13),
    });
    expect(over.status).toBe(400);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/rules`)).body).toEqual(r.body);
    expect((await eventsOf(t, 'firewall', fw.id)).map((e) => e.action)).toEqual([
      'firewall_create',
      'firewall_rules_update',
    ]);
  });

  it('updateFirewall: disable and enable with their events; deleted cannot be set; label and tags change', async () => {
    const fw = await firewall(t);
    const off = await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'disabled' });
    expect(off.body.status).toBe('disabled');
    const on = await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'enabled' });
    expect(on.body.status).toBe('enabled');
    const del = await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'deleted' });
    expect(del.status).toBe(400);
    expect(fieldsOf(del)).toEqual(['status']);
    const ren = await t.put(`/v4/networking/firewalls/${fw.id}`, {
      label: 'renamed',
      tags: ['a1b'],
    });
    expect(ren.body).toMatchObject({ label: 'renamed', tags: ['a1b'], status: 'enabled' });
    expect((await eventsOf(t, 'firewall', fw.id)).map((e) => e.action)).toEqual([
      'firewall_create',
      'firewall_disable',
      'firewall_enable',
      'firewall_update',
    ]);
  });

  it('createFirewallDevice: adds an instance with a firewall_device_add event; list, view and remove', async () => {
    const inst = await instance(t, { label: 'web-1' });
    const fw = await firewall(t);
    const r = await t.post(`/v4/networking/firewalls/${fw.id}/devices`, {
      id: inst.id,
      type: 'compute',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: r.body.id,
      created: r.body.created,
      updated: r.body.created,
      entity: {
        id: inst.id,
        type: 'compute',
        label: 'web-1',
        url: `/v4/compute/instances/${inst.id}`,
        parent_entity: null,
      },
    });
    expect((await t.get(`/v4/networking/firewalls/${fw.id}`)).body.entities).toEqual([
      r.body.entity,
    ]);
    const list = await t.get(`/v4/networking/firewalls/${fw.id}/devices`);
    expect(list.body).toMatchObject({ data: [r.body], results: 1 });
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/devices/${r.body.id}`)).body).toEqual(
      r.body,
    );
    const again = await t.post(`/v4/networking/firewalls/${fw.id}/devices`, {
      id: inst.id,
      type: 'compute',
    });
    expect(again.status).toBe(400);
    const onInst = await t.get(`/v4/compute/instances/${inst.id}/firewalls`);
    expect(onInst.body.data.map((f: { id: number }) => f.id)).toEqual([fw.id]);

    expect((await t.del(`/v4/networking/firewalls/${fw.id}/devices/${r.body.id}`)).status).toBe(
      200,
    );
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/devices/${r.body.id}`)).status).toBe(
      404,
    );
    const evs = await eventsOf(t, 'firewall', fw.id);
    expect(evs.map((e) => e.action)).toEqual([
      'firewall_create',
      'firewall_device_add',
      'firewall_device_remove',
    ]);
    expect(evs[1]?.secondary_entity).toMatchObject({
      type: 'compute',
      id: inst.id,
      label: 'web-1',
    });
    expect((await t.get(`/v4/compute/instances/${inst.id}/firewalls`)).body.results).toBe(0);
  });

  it('createFirewallDevice: an unknown or hidden instance is a 400, a read_only grant a 403, an undeclared type a 400', async () => {
    const inst = await instance(t);
    const fw = await firewall(t);
    const url = `/v4/networking/firewalls/${fw.id}/devices`;
    const missing = await t.post(url, { id: 999999, type: 'compute' });
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing)).toEqual(['id']);
    const grants = [{ type: 'firewall', id: fw.id, permissions: 'read_write' as const }];
    const ro = await createTestUser(t, {
      grants: [...grants, { type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    expect((await t.post(url, { id: inst.id, type: 'compute' }, { token: ro.token })).status).toBe(
      403,
    );
    const none = await createTestUser(t, { grants });
    const hidden = await t.post(url, { id: inst.id, type: 'compute' }, { token: none.token });
    expect(hidden.status).toBe(400);
    // No NodeBalancer 999999 exists; volumes are no device type.
    expect((await t.post(url, { id: 999999, type: 'nodebalancer' })).status).toBe(400);
    expect((await t.post(url, { id: 1, type: 'volume' })).status).toBe(400);
    expect((await t.get(url)).body.results).toBe(0);
  });

  it('createFirewallDevice: one enabled firewall per service; a disabled one may be assigned but not enabled while the other is', async () => {
    const inst = await instance(t);
    const a = await firewall(t, { devices: { computes: [inst.id] } });
    const b = await firewall(t);
    const add = (id: number) =>
      t.post(`/v4/networking/firewalls/${id}/devices`, { id: inst.id, type: 'compute' });
    const refused = await add(b.id);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/already has an enabled firewall/);
    const second = await t.post('/v4/networking/firewalls', {
      label: 'second',
      rules: RULES,
      devices: { computes: [inst.id] },
    });
    expect(second.status).toBe(400);

    await t.put(`/v4/networking/firewalls/${b.id}`, { status: 'disabled' });
    expect((await add(b.id)).status).toBe(200);
    const enable = await t.put(`/v4/networking/firewalls/${b.id}`, { status: 'enabled' });
    expect(enable.status).toBe(400);
    expect((await t.get(`/v4/networking/firewalls/${b.id}`)).body.status).toBe('disabled');

    await t.put(`/v4/networking/firewalls/${a.id}`, { status: 'disabled' });
    expect((await t.put(`/v4/networking/firewalls/${b.id}`, { status: 'enabled' })).status).toBe(
      200,
    );
    expect((await t.put(`/v4/networking/firewalls/${a.id}`, { status: 'enabled' })).status).toBe(
      400,
    );
  });

  it('updateFirewall: concurrent enables and device adds still leave one enabled firewall per service', async () => {
    const inst = await instance(t);
    const fws = [];
    for (let i = 0; i < 6; i++) {
      const fw = await firewall(t);
      await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'disabled' });
      fws.push(fw);
    }
    for (const fw of fws.slice(0, 3)) {
      const r = await t.post(`/v4/networking/firewalls/${fw.id}/devices`, {
        id: inst.id,
        type: 'compute',
      });
      expect(r.status).toBe(200);
    }
    for (const fw of fws.slice(3))
      await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'enabled' });
    const results = await Promise.all([
      ...fws
        .slice(0, 3)
        .map((fw) => t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'enabled' })),
      ...fws
        .slice(3)
        .map((fw) =>
          t.post(`/v4/networking/firewalls/${fw.id}/devices`, { id: inst.id, type: 'compute' }),
        ),
    ]);
    expect(results.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
    expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    const enabledWithInst = await t.ctx.db.db
      .selectFrom('firewall_devices as d')
      .innerJoin('firewalls as f', 'f.id', 'd.firewall_id')
      .select('f.id')
      .where('d.entity_id', '=', inst.id)
      .where('f.status', '=', 'enabled')
      .execute();
    expect(enabledWithInst).toHaveLength(1);
  });

  it('getFirewalls: X-Filter on label and tags', async () => {
    await firewall(t, { label: 'alpha-fw', tags: ['prod'] });
    await firewall(t, { label: 'beta-fw' });
    const byLabel = await t.get('/v4/networking/firewalls', { filter: { label: 'beta-fw' } });
    expect(byLabel.body.data.map((f: { label: string }) => f.label)).toEqual(['beta-fw']);
    const byTag = await t.get('/v4/networking/firewalls', { filter: { tags: 'prod' } });
    expect(byTag.body.data.map((f: { label: string }) => f.label)).toEqual(['alpha-fw']);
    expect(
      (await t.get('/v4/networking/firewalls', { filter: { status: 'enabled' } })).status,
    ).toBe(400);
  });

  it('firewall devices: an instance with a live migration cannot be assigned; disable and delete wait for it', async () => {
    const inst = await instance(t);
    const other = await instance(t);
    const fw = await firewall(t, { devices: { computes: [other.id] } });
    await t.ctx.db.db
      .updateTable('instances')
      .set({ status: 'migrating' })
      .where('id', '=', inst.id)
      .execute();
    const add = await t.post(`/v4/networking/firewalls/${fw.id}/devices`, {
      id: inst.id,
      type: 'compute',
    });
    expect(add.status).toBe(400);
    expect(add.body.errors[0].reason).toMatch(/migration/);
    const create = await t.post('/v4/networking/firewalls', {
      label: 'mig-fw',
      rules: RULES,
      devices: { computes: [inst.id] },
    });
    expect(create.status).toBe(400);

    // A queued migration job counts as well.
    await t.ctx.db.db
      .updateTable('instances')
      .set({ status: 'running' })
      .where('id', '=', inst.id)
      .execute();
    await t.ctx.db.db
      .updateTable('instances')
      .set({ status: 'migrating' })
      .where('id', '=', other.id)
      .execute();
    expect((await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'disabled' })).status).toBe(
      400,
    );
    expect((await t.del(`/v4/networking/firewalls/${fw.id}`)).status).toBe(400);
    await t.ctx.db.db
      .updateTable('instances')
      .set({ status: 'running' })
      .where('id', '=', other.id)
      .execute();
    await t.ctx.db.db
      .insertInto('jobs')
      .values({
        name: 'compute_migrate',
        payload: '{}',
        status: 'queued',
        run_at: t.clock.nowMs() + 3_600_000,
        attempts: 0,
        max_attempts: 1,
        locked_by: null,
        locked_until: null,
        last_error: null,
        account_id: t.admin.accountId,
        entity_type: 'compute',
        entity_id: inst.id,
        created: '2026-03-01T12:00:00',
        updated: '2026-03-01T12:00:00',
      })
      .execute();
    const queued = await t.post(`/v4/networking/firewalls/${fw.id}/devices`, {
      id: inst.id,
      type: 'compute',
    });
    expect(queued.status).toBe(400);
    expect((await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'disabled' })).status).toBe(
      200,
    );
  });

  it('deleteFirewall: removes the firewall and its devices, with a firewall_delete event', async () => {
    const inst = await instance(t);
    const fw = await firewall(t, { devices: { computes: [inst.id] } });
    expect((await t.del(`/v4/networking/firewalls/${fw.id}`)).status).toBe(200);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}`)).status).toBe(404);
    expect((await t.get(`/v4/compute/instances/${inst.id}/firewalls`)).body.results).toBe(0);
    expect(await t.ctx.db.db.selectFrom('firewall_devices').selectAll().execute()).toEqual([]);
    const evs = await eventsOf(t, 'firewall', fw.id);
    expect(evs.map((e) => e.action)).toEqual([
      'firewall_create',
      'firewall_device_add',
      'firewall_delete',
    ]);
    // Its instance may now get another enabled firewall.
    expect((await firewall(t, { devices: { computes: [inst.id] } })).status).toBe('enabled');
  });

  it('createComputeInstance: firewall_id assigns the firewall; an unknown one is refused with nothing created', async () => {
    const fw = await firewall(t);
    const inst = await instance(t, { extra: { firewall_id: fw.id } });
    const devs = await t.get(`/v4/networking/firewalls/${fw.id}/devices`);
    expect(devs.body.data.map((d: { entity: { id: number } }) => d.entity.id)).toEqual([inst.id]);
    const bad = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      firewall_id: 999999,
    });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad)).toEqual(['firewall_id']);
    expect((await t.get('/v4/compute/instances')).body.results).toBe(1);
  });

  it('deleteComputeInstance: the instance leaves every firewall it was a device of', async () => {
    const inst = await instance(t);
    const fw = await firewall(t, { devices: { computes: [inst.id] } });
    expect((await t.del(`/v4/compute/instances/${inst.id}`)).status).toBe(200);
    await t.settle();
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/devices`)).body.results).toBe(0);
  });

  it('firewalls and grants: add_firewalls is needed to create; the creator gets read_write; others are hidden', async () => {
    const no = await createTestUser(t);
    const body = { label: 'restricted', rules: RULES };
    expect((await t.post('/v4/networking/firewalls', body, { token: no.token })).status).toBe(403);
    const yes = await createTestUser(t, { global: { add_firewalls: true } });
    const mine = await firewall(t, body, yes.token);
    const other = await firewall(t);
    const list = await t.get('/v4/networking/firewalls', { token: yes.token });
    expect(list.body.data.map((f: { id: number }) => f.id)).toEqual([mine.id]);
    expect((await t.get(`/v4/networking/firewalls/${other.id}`, { token: yes.token })).status).toBe(
      404,
    );
    const ro = await createTestUser(t, {
      grants: [{ type: 'firewall', id: other.id, permissions: 'read_only' }],
    });
    expect(
      (await t.put(`/v4/networking/firewalls/${other.id}`, { label: 'x-y-z' }, { token: ro.token }))
        .status,
    ).toBe(403);
    const scoped = await createTestUser(t, { restricted: false, scopes: 'firewall:read_only' });
    expect((await t.post('/v4/networking/firewalls', body, { token: scoped.token })).status).toBe(
      401,
    );
    const inst = await instance(t);
    await t.post(`/v4/networking/firewalls/${mine.id}/devices`, { id: inst.id, type: 'compute' });
    const seer = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    const onInst = await t.get(`/v4/compute/instances/${inst.id}/firewalls`, { token: seer.token });
    expect(onInst.body.results).toBe(0);
    const grants = await t.get('/v4/profile/grants', { token: yes.token });
    expect(grants.body.firewall).toEqual([
      { id: mine.id, label: 'restricted', permissions: 'read_write' },
    ]);
  });

  it('evaluateFirewall: the first matching rule decides, else the policy; a disabled firewall lets all through', async () => {
    const fw = await firewall(t, {
      rules: {
        inbound_policy: 'DROP',
        outbound_policy: 'ACCEPT',
        inbound: [
          { protocol: 'TCP', ports: '22', addresses: { ipv4: ['203.0.113.0/24'] }, action: 'DROP' },
          {
            protocol: 'TCP',
            ports: '22, 443',
            addresses: { ipv4: ['0.0.0.0/0'] },
            action: 'ACCEPT',
          },
        ],
        outbound: [{ protocol: 'UDP', addresses: { ipv6: ['::/0'] }, action: 'DROP' }],
      },
    });
    const url = `/_stratus/firewalls/${fw.id}/evaluate`;
    const ev = (body: Record<string, unknown>) => t.post(url, body);
    const blocked = await ev({
      direction: 'inbound',
      protocol: 'TCP',
      port: 22,
      address: '203.0.113.7',
    });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ action: 'DROP', decided_by: 'rule', rule_index: 0 });
    expect(
      (await ev({ direction: 'inbound', protocol: 'TCP', port: 443, address: '198.51.100.1' }))
        .body,
    ).toMatchObject({ action: 'ACCEPT', decided_by: 'rule', rule_index: 1 });
    expect(
      (await ev({ direction: 'inbound', protocol: 'UDP', port: 53, address: '198.51.100.1' })).body,
    ).toMatchObject({ action: 'DROP', decided_by: 'policy', rule_index: null, rule: null });
    expect(
      (await ev({ direction: 'outbound', protocol: 'UDP', port: 53, address: '2001:db8::1' })).body,
    ).toMatchObject({ action: 'DROP', decided_by: 'rule', rule_index: 0 });
    expect((await ev({ direction: 'inbound', protocol: 'TCP', address: 'nope' })).status).toBe(400);
    expect(
      (
        await t.post(
          url,
          { direction: 'inbound', protocol: 'TCP', address: '1.2.3.4' },
          { token: null },
        )
      ).status,
    ).toBe(401);
    await t.put(`/v4/networking/firewalls/${fw.id}`, { status: 'disabled' });
    expect(
      (await ev({ direction: 'inbound', protocol: 'TCP', port: 22, address: '203.0.113.7' })).body,
    ).toMatchObject({ action: 'ACCEPT', decided_by: 'disabled' });
    expect(
      (
        await t.post('/_stratus/firewalls/999999/evaluate', {
          direction: 'inbound',
          protocol: 'TCP',
          address: '1.2.3.4',
        })
      ).status,
    ).toBe(404);
  });
});

describe('firewalls and NodeBalancers', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createFirewallDevice: a NodeBalancer is resolved through its declaration; one per firewall', async () => {
    const nb = async (label: string) =>
      (await t.post('/v4/nodebalancers', { region: 'us-east', label })).body as { id: number };
    const seven = await nb('nb-seven');
    const eight = await nb('nb-eight');
    const fw = await firewall(t);
    const url = `/v4/networking/firewalls/${fw.id}/devices`;
    const r = await t.post(url, { id: seven.id, type: 'nodebalancer' });
    expect(r.status).toBe(200);
    expect(r.body.entity).toEqual({
      id: seven.id,
      type: 'nodebalancer',
      label: 'nb-seven',
      url: `/v4/nodebalancers/${seven.id}`,
      parent_entity: null,
    });
    const second = await t.post(url, { id: eight.id, type: 'nodebalancer' });
    expect(second.status).toBe(400);
    expect(second.body.errors[0].reason).toMatch(/at most one NodeBalancer/);
    expect((await t.post(url, { id: 999999, type: 'nodebalancer' })).status).toBe(400);
    const two = await t.post('/v4/networking/firewalls', {
      label: 'two-nbs',
      rules: RULES,
      devices: { nodebalancers: [seven.id, eight.id] },
    });
    expect(fieldsOf(two)).toEqual(['devices.nodebalancers']);
  });
});
