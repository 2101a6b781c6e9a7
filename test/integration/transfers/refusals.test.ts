import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { backend, nodebalancer } from '../nodebalancers/fixtures.js';
import { createTransfer, instance } from './fixtures.js';

/** The reference's conditions on a transferable instance, one area's refusal at a time. */
describe('service transfer refusals', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const refused = async (id: number, reason: RegExp) => {
    const r = await createTransfer(t, [id]);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.errors[0].field).toBe('entities.computes');
    expect(r.body.errors[0].reason).toMatch(reason);
  };

  it('createServiceTransfer: refuses an instance with an IPv6 range, until the range is deleted', async () => {
    const a = await instance(t);
    const range = await t.post('/v4/networking/ipv6/ranges', {
      prefix_length: 64,
      compute_id: a.id,
    });
    expect(range.status, JSON.stringify(range.body)).toBe(200);
    await refused(a.id, /IPv6 ranges/);
    const net = range.body.range.split('/')[0];
    expect((await t.del(`/v4/networking/ipv6/ranges/${net}`)).status).toBe(200);
    expect((await createTransfer(t, [a.id])).status).toBe(200);
  });

  it('createServiceTransfer: refuses an instance with a VLAN interface', async () => {
    const a = await instance(t, {
      interfaces: [
        { purpose: 'public' },
        { purpose: 'vlan', label: 'v1', ipam_address: '10.0.0.1/24' },
      ],
    });
    await refused(a.id, /VLAN/);
  });

  it('createServiceTransfer: refuses a NodeBalancer backend and an instance sharing an address', async () => {
    const nb = await nodebalancer(t);
    const cfg = await t.post(`/v4/nodebalancers/${nb.id}/configs`, {});
    const b = await backend(t);
    const node = await t.post(`/v4/nodebalancers/${nb.id}/configs/${cfg.body.id}/nodes`, {
      address: `${b.ip}:80`,
      label: 'web',
    });
    expect(node.status, node.text).toBe(200);
    await refused(b.id, /NodeBalancer/);

    const x = await instance(t);
    const y = await instance(t);
    const ipX = (await t.get(`/v4/compute/instances/${x.id}`)).body.ipv4[0];
    const share = await t.post('/v4/networking/ips/share', { compute_id: y.id, ips: [ipX] });
    expect(share.status, JSON.stringify(share.body)).toBe(200);
    await refused(x.id, /shared IP/);
    await refused(y.id, /shared IP/);
  });
});
