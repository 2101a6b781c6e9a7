import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { fieldsOf, firewall } from './fixtures.js';

const HTTP = {
  action: 'ACCEPT',
  label: 'allow-http',
  ports: '80',
  protocol: 'TCP',
  addresses: { ipv4: ['0.0.0.0/0'] },
};
const HTTPS = {
  label: 'allow-https',
  ports: '443',
  action: 'ACCEPT',
  protocol: 'TCP',
  addresses: { ipv6: ['::/0'] },
};

/** Rule sets: named, versioned rules of one direction, named from a firewall's rules. */
describe('firewall rule sets', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const ruleset = async (body: Record<string, unknown> = {}) => {
    const r = await t.post('/v4/networking/firewalls/rulesets', {
      label: `rs-${Math.floor(Math.random() * 1e9)}`,
      description: 'Allow inbound HTTP',
      type: 'inbound',
      rules: [HTTP],
      ...body,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { id: number; label: string; version: number };
  };

  it('createFirewallRuleset: created at version 1 with its rules; update makes version 2; delete leaves it listed with deleted set', async () => {
    const r = await t.post('/v4/networking/firewalls/rulesets', {
      label: 'rs-51452000',
      description: 'Allow inbound HTTP',
      type: 'inbound',
      rules: [HTTP],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: r.body.id,
      version: 1,
      label: 'rs-51452000',
      description: 'Allow inbound HTTP',
      type: 'inbound',
      is_service_defined: false,
      rules: [HTTP],
      created: '2026-03-01T12:00:00',
      updated: '2026-03-01T12:00:00',
      deleted: null,
    });
    expect((await t.get(`/v4/networking/firewalls/rulesets/${r.body.id}`)).body).toEqual(r.body);
    t.clock.advance(60_000);
    const up = await t.put(`/v4/networking/firewalls/rulesets/${r.body.id}`, {
      label: 'rs-51452000-updated',
      description: 'Updated description',
      rules: [HTTPS],
    });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      version: 2,
      label: 'rs-51452000-updated',
      description: 'Updated description',
      type: 'inbound',
      rules: [HTTPS],
      updated: '2026-03-01T12:01:00',
    });
    // Label and description alone make no new version of the rules.
    const ren = await t.put(`/v4/networking/firewalls/rulesets/${r.body.id}`, { label: 'rs-x1' });
    expect(ren.body.version).toBe(2);
    expect((await t.del(`/v4/networking/firewalls/rulesets/${r.body.id}`)).status).toBe(200);
    const list = await t.get('/v4/networking/firewalls/rulesets');
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1 });
    expect(list.body.data[0]).toMatchObject({ id: r.body.id, deleted: '2026-03-01T12:01:00' });
    expect((await t.del(`/v4/networking/firewalls/rulesets/${r.body.id}`)).status).toBe(404);
    expect(
      (await t.put(`/v4/networking/firewalls/rulesets/${r.body.id}`, { label: 'again' })).status,
    ).toBe(404);
    // Its label is free again.
    await ruleset({ label: 'rs-x1' });
  });

  it('createFirewallRuleset: label, type and rules are checked, a bad rule names its field, and nothing is made', async () => {
    const missing = await t.post('/v4/networking/firewalls/rulesets', {});
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing)).toEqual(['label', 'rules', 'type']);
    const bad = await t.post('/v4/networking/firewalls/rulesets', {
      label: 'a--b',
      type: 'inbound',
      rules: [{ ...HTTP, ports: '99999' }, { action: 'ACCEPT', protocol: 'TCP' }, { ruleset: 1 }],
    });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad)).toEqual([
      'label',
      'rules[0].ports',
      'rules[1].addresses',
      'rules[2].action',
      'rules[2].addresses',
      'rules[2].protocol',
      'rules[2].ruleset',
    ]);
    const sideways = await t.post('/v4/networking/firewalls/rulesets', {
      label: 'abc',
      type: 'sideways',
      rules: [],
    });
    expect(fieldsOf(sideways)).toEqual(['type']);
    const first = await ruleset({ label: 'same' });
    const dup = await t.post('/v4/networking/firewalls/rulesets', {
      label: 'same',
      type: 'outbound',
      rules: [],
    });
    expect(fieldsOf(dup)).toEqual(['label']);
    expect(
      (await t.get('/v4/networking/firewalls/rulesets')).body.data.map((x: { id: number }) => x.id),
    ).toEqual([first.id]);
  });

  it('updateFirewallRules: an entry {ruleset} names a rule set of its direction; the expansion puts its rules in place; the evaluator follows them', async () => {
    const rs = await ruleset();
    const out = await ruleset({ type: 'outbound', rules: [HTTPS] });
    const fw = await firewall(t, {
      rules: {
        inbound_policy: 'DROP',
        outbound_policy: 'ACCEPT',
        inbound: [{ ruleset: rs.id }],
        outbound: [],
      },
    });
    expect(fw.rules).toMatchObject({ inbound: [{ ruleset: rs.id }], version: 1 });
    const both = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      inbound: [{ ruleset: rs.id, protocol: 'TCP' }],
    });
    expect(both.status).toBe(400);
    expect(fieldsOf(both)).toEqual(['inbound[0].ruleset']);
    const wrong = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      inbound: [{ ruleset: out.id }, { ruleset: 999999 }],
    });
    expect(wrong.status).toBe(400);
    expect(fieldsOf(wrong)).toEqual(['inbound[0].ruleset', 'inbound[1].ruleset']);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}/history`)).body.results).toBe(1);
    // A null beside it is no field (the null ports of SDKs that send every field).
    const nulls = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      inbound: [{ ruleset: rs.id, ports: null, protocol: null }],
    });
    expect(nulls.status, JSON.stringify(nulls.body)).toBe(200);
    expect(nulls.body.inbound).toEqual([{ ruleset: rs.id }]);
    // The rules as they were: no new version.
    expect(nulls.body.version).toBe(1);
    const put = await t.put(`/v4/networking/firewalls/${fw.id}/rules`, {
      inbound: [HTTPS, { ruleset: rs.id }],
      outbound: [{ ruleset: out.id }],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({
      inbound: [HTTPS, { ruleset: rs.id }],
      outbound: [{ ruleset: out.id }],
      version: 2,
    });
    const exp = await t.get(`/v4/networking/firewalls/${fw.id}/rules/expansion`);
    expect(exp.status).toBe(200);
    expect(exp.body).toEqual({ ...put.body, inbound: [HTTPS, HTTP], outbound: [HTTPS] });
    const port80 = { direction: 'inbound', protocol: 'TCP', port: 80, address: '198.51.100.7' };
    const ev = await t.post(`/_stratus/firewalls/${fw.id}/evaluate`, port80);
    expect(ev.status, JSON.stringify(ev.body)).toBe(200);
    expect(ev.body).toMatchObject({ action: 'ACCEPT', rule: HTTP });
    // A change of the rule set changes what the firewall applies.
    await t.put(`/v4/networking/firewalls/rulesets/${rs.id}`, { rules: [] });
    const after = await t.post(`/_stratus/firewalls/${fw.id}/evaluate`, port80);
    expect(after.body).toMatchObject({ action: 'DROP', decided_by: 'policy' });
    // A rule set a firewall names cannot be deleted.
    const del = await t.del(`/v4/networking/firewalls/rulesets/${rs.id}`);
    expect(del.status).toBe(400);
    expect(del.body.errors[0].reason).toMatch(/used by firewall/);
  });

  it('rule sets and grants: restricted users read them with account access and write them with add_firewalls; another account\u2019s are not found', async () => {
    const rs = await ruleset();
    const none = await createTestUser(t);
    expect(
      (await t.get(`/v4/networking/firewalls/rulesets/${rs.id}`, { token: none.token })).status,
    ).toBe(403);
    expect((await t.get('/v4/networking/firewalls/rulesets', { token: none.token })).status).toBe(
      403,
    );
    const reader = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect(
      (await t.get(`/v4/networking/firewalls/rulesets/${rs.id}`, { token: reader.token })).status,
    ).toBe(200);
    const body = { label: 'mine', type: 'inbound', rules: [] };
    expect(
      (await t.post('/v4/networking/firewalls/rulesets', body, { token: none.token })).status,
    ).toBe(403);
    expect(
      (
        await t.put(
          `/v4/networking/firewalls/rulesets/${rs.id}`,
          { label: 'x-y' },
          { token: none.token },
        )
      ).status,
    ).toBe(403);
    const adder = await createTestUser(t, { global: { add_firewalls: true } });
    expect(
      (await t.post('/v4/networking/firewalls/rulesets', body, { token: adder.token })).status,
    ).toBe(200);
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'other@example.com',
      username: 'other',
    });
    expect(
      (await t.get(`/v4/networking/firewalls/rulesets/${rs.id}`, { token: other.token })).status,
    ).toBe(404);
    // Another account's rule set cannot be named from a firewall.
    const theirs = await t.post(
      '/v4/networking/firewalls',
      {
        label: 'theirs',
        rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', inbound: [{ ruleset: rs.id }] },
      },
      { token: other.token },
    );
    expect(theirs.status).toBe(400);
    expect(fieldsOf(theirs)).toEqual(['rules.inbound[0].ruleset']);
    expect((await t.get('/v4/networking/firewalls', {})).body.results).toBe(0);
  });
});
