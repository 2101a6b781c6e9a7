import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createInstance } from '../compute/interfaces.fixtures.js';

/** `interface_id` of account-wide addresses: the public interface of a compute-generation instance. */
describe('networking ips: interface_id', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const create = (body: Record<string, unknown>) => createInstance(t, body);

  it('getIPs, getIP: a public IPv4 of an instance of the compute generation names its public interface; others null', async () => {
    const gen = await create({ interface_generation: 'compute', interfaces: [{ public: {} }] });
    const legacy = await create({});
    const ifaces = await t.get(`/v4/compute/instances/${gen.id}/interfaces`);
    const pub = (ifaces.body.interfaces as { id: number; public: unknown }[]).find((i) => i.public);
    expect(pub).toBeDefined();
    const list = await t.get('/v4/networking/ips');
    expect(list.status).toBe(200);
    const rows = list.body.data as {
      address: string;
      type: string;
      compute_id: number | null;
      interface_id: number | null;
    }[];
    const byAddress = new Map(rows.map((r) => [r.address, r]));
    expect(byAddress.get(gen.ipv4[0] as string)?.interface_id).toBe(pub?.id);
    expect(byAddress.get(legacy.ipv4[0] as string)?.interface_id).toBeNull();
    // IPv6 rows are not the interface's in this view.
    for (const r of rows.filter((x) => x.type === 'ipv6')) expect(r.interface_id).toBeNull();
    // The single-address view and the instance's view say the same.
    const one = await t.get(`/v4/networking/ips/${gen.ipv4[0]}`);
    expect(one.body.interface_id).toBe(pub?.id);
    expect((await t.get(`/v4/networking/ips/${legacy.ipv4[0]}`)).body.interface_id).toBeNull();
    const own = await t.get(`/v4/compute/instances/${gen.id}/ips`);
    expect(own.body.ipv4.public[0].interface_id).toBe(pub?.id);
  });
});
