import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instanceWith, REGION, dualStackVpc } from '../vpcs/fixtures.js';

const fieldsOf = (r: { body: { errors?: { field?: string }[] } }) =>
  (r.body.errors ?? []).map((e) => e.field);

/** NodeBalancer VPC configurations in dual-stack subnets, and ranges chosen inside a range. */
describe('nodebalancer vpcs: IPv6 ranges and auto-assigned IPv4 ranges', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const nb = (body: Record<string, unknown>) =>
    t.post('/v4/nodebalancers', { region: REGION, ...body });

  const dualStack = () => dualStackVpc(t);

  it('createNodeBalancer: a configuration in a dual-stack subnet gets a free /64; instances then skip it', async () => {
    const v = await dualStack();
    // An instance takes the subnet's first /64 for its SLAAC range.
    await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.dual }]);
    const r = await nb({ vpcs: [{ subnet_id: v.dual, ipv6_range: '' }] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [cfg] = (await t.get(`/v4/nodebalancers/${r.body.id}/vpcs`)).body.data;
    expect(cfg.ipv6_range).toBe('2001:db8:8500:1::/64');
    expect((await t.get(`/v4/nodebalancers/${r.body.id}/vpcs/${cfg.id}`)).body).toEqual(cfg);
    const sub = (await t.get(`/v4/vpcs/${v.id}/subnets/${v.dual}`)).body;
    expect(sub.nodebalancers).toEqual([
      {
        id: r.body.id,
        ipv4_range: cfg.ipv4_range,
        ipv6_ranges: [{ range: '2001:db8:8500:1::/64' }],
      },
    ]);
    const next = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.dual }]);
    const iface = ((await t.get(next.url)).body as { ipv6: { slaac: { range: string }[] } }[])[0];
    expect(iface?.ipv6.slaac[0]?.range).toBe('2001:db8:8500:2::/64');
    // An IPv4-only subnet: no IPv6 range.
    const plain = await nb({ vpcs: [{ subnet_id: v.v4 }] });
    const [p4] = (await t.get(`/v4/nodebalancers/${plain.body.id}/vpcs`)).body.data;
    expect(p4.ipv6_range).toBeNull();
  });

  it('createNodeBalancer: ipv6_range is a free /64 of a dual-stack subnet; nothing is created on refusal', async () => {
    const v = await dualStack();
    const refused = async (vpcs: unknown[], field: string) => {
      const r = await nb({ vpcs });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(fieldsOf(r)).toEqual([field]);
    };
    await refused([{ subnet_id: v.v4, ipv6_range: '2001:db8:8500::/64' }], 'vpcs.0.ipv6_range');
    await refused([{ subnet_id: v.dual, ipv6_range: '2001:db8:8500::/56' }], 'vpcs.0.ipv6_range');
    await refused([{ subnet_id: v.dual, ipv6_range: '2001:db8:8500::1/64' }], 'vpcs.0.ipv6_range');
    await refused([{ subnet_id: v.dual, ipv6_range: '2001:db8:8501::/64' }], 'vpcs.0.ipv6_range');
    await refused([{ subnet_id: v.dual, ipv6_range: 'nonsense' }], 'vpcs.0.ipv6_range');
    expect((await t.get('/v4/nodebalancers')).body.results).toBe(0);
    const ok = await nb({ vpcs: [{ subnet_id: v.dual, ipv6_range: '2001:db8:8500:3::/64' }] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await t.get(`/v4/nodebalancers/${ok.body.id}/vpcs`)).body.data[0].ipv6_range).toBe(
      '2001:db8:8500:3::/64',
    );
    // Held by that NodeBalancer: refused to another, and to an interface.
    await refused([{ subnet_id: v.dual, ipv6_range: '2001:db8:8500:3::/64' }], 'vpcs.0.ipv6_range');
    const inst = await instanceWith(t, [{ purpose: 'public' }]);
    const put = await t.put(`/v4/compute/instances/${inst.id}/configs/${inst.config}`, {
      interfaces: [
        { purpose: 'vpc', subnet_id: v.dual, ipv6: { slaac: [{ range: '2001:db8:8500:3::/64' }] } },
      ],
    });
    expect(put.status).toBe(400);
    expect(fieldsOf(put)).toEqual(['interfaces.0.ipv6.slaac.0.range']);
  });

  it('createNodeBalancer: with ipv4_range_auto_assign, ipv4_range is the range a free /30 is chosen from', async () => {
    const v = await dualStack();
    // The pair a Terraform configuration sends: a /30 with auto-assign keeps that /30 when free.
    const a = await nb({
      vpcs: [{ subnet_id: v.v4, ipv4_range: '10.0.1.4/30', ipv4_range_auto_assign: true }],
    });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect((await t.get(`/v4/nodebalancers/${a.body.id}/vpcs`)).body.data[0].ipv4_range).toBe(
      '10.0.1.4/30',
    );
    const b = await nb({
      vpcs: [{ subnet_id: v.v4, ipv4_range: '10.0.1.0/28', ipv4_range_auto_assign: true }],
    });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect((await t.get(`/v4/nodebalancers/${b.body.id}/vpcs`)).body.data[0].ipv4_range).toBe(
      '10.0.1.8/30',
    );
    const outside = await nb({
      vpcs: [{ subnet_id: v.v4, ipv4_range: '10.0.2.0/28', ipv4_range_auto_assign: true }],
    });
    expect(fieldsOf(outside)).toEqual(['vpcs.0.ipv4_range']);
    // Full: 10.0.1.0/29 holds only the first two addresses and the NodeBalancer's /30.
    const full = await nb({
      vpcs: [{ subnet_id: v.v4, ipv4_range: '10.0.1.0/29', ipv4_range_auto_assign: true }],
    });
    expect(full.status).toBe(400);
    expect(fieldsOf(full)).toEqual(['vpcs.0.ipv4_range']);
  });
});
