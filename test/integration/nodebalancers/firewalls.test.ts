import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { nodebalancer } from './fixtures.js';

const RULES = { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', inbound: [], outbound: [] };

/** The seam between NodeBalancers and firewalls: a NodeBalancer is a firewall device. */
describe('nodebalancer firewalls', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const firewall = async (label: string) => {
    const r = await t.post('/v4/networking/firewalls', { label, rules: RULES });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { id: number };
  };
  const devices = async (id: number) =>
    (await t.get(`/v4/networking/firewalls/${id}/devices`)).body.data.map(
      (d: { entity: { type: string; id: number } }) => [d.entity.type, d.entity.id],
    );

  it('createNodeBalancer: firewall_id assigns the firewall; the NodeBalancer lists it; deleting it leaves the firewall', async () => {
    const fw = await firewall('nb-fw');
    const nb = await nodebalancer(t, { firewall_id: fw.id });
    expect(await devices(fw.id)).toEqual([['nodebalancer', nb.id]]);
    const listed = await t.get(`/v4/nodebalancers/${nb.id}/firewalls`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((f: { id: number }) => f.id)).toEqual([fw.id]);
    expect((await t.del(`/v4/nodebalancers/${nb.id}`)).status).toBe(200);
    expect(await devices(fw.id)).toEqual([]);
    expect((await t.get(`/v4/networking/firewalls/${fw.id}`)).status).toBe(200);
  });

  it('createNodeBalancer: a second NodeBalancer on the same firewall is refused and not created', async () => {
    const fw = await firewall('one-nb');
    await nodebalancer(t, { firewall_id: fw.id });
    const before = (await t.get('/v4/nodebalancers')).body.results;
    const second = await t.post('/v4/nodebalancers', {
      region: 'us-east',
      label: 'second',
      firewall_id: fw.id,
    });
    expect(second.status).toBe(400);
    expect(second.body.errors[0].field).toBe('firewall_id');
    expect((await t.get('/v4/nodebalancers')).body.results).toBe(before);
  });

  it('createFirewallDevice: a NodeBalancer is added as a device by id and type', async () => {
    const fw = await firewall('by-device');
    const nb = await nodebalancer(t);
    const r = await t.post(`/v4/networking/firewalls/${fw.id}/devices`, {
      id: nb.id,
      type: 'nodebalancer',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.entity).toMatchObject({
      id: nb.id,
      type: 'nodebalancer',
      url: `/v4/nodebalancers/${nb.id}`,
    });
    expect(
      (await t.get(`/v4/nodebalancers/${nb.id}/firewalls`)).body.data.map(
        (f: { id: number }) => f.id,
      ),
    ).toEqual([fw.id]);
  });
});
