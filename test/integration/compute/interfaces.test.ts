import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';

describe('config interfaces', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  /** An image deployment (running unless booted is false) and its config's interfaces URL. */
  const setup = async (interfaces: unknown[], booted = false) => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted,
      interfaces,
    });
    expect(r.status).toBe(200);
    await t.settle();
    const id = r.body.id as number;
    const config = (await t.get(`/v4/compute/instances/${id}/configs`)).body.data[0].id as number;
    return { id, config, url: `/v4/compute/instances/${id}/configs/${config}/interfaces` };
  };
  const updates = async (id: number) =>
    (
      await t.get('/v4/account/events', {
        filter: { 'entity.id': id, action: 'compute_config_update' },
      })
    ).body.results;

  it('getComputeConfigInterfaces: a bare array in eth order, active while the instance runs with the config', async () => {
    const { url } = await setup(
      [{ purpose: 'public' }, { purpose: 'vlan', label: 'v1', ipam_address: '10.0.0.1/24' }],
      true,
    );
    const r = await t.get(url);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body.map((i: { purpose: string; active: boolean }) => [i.purpose, i.active])).toEqual([
      ['public', true],
      ['vlan', true],
    ]);
    expect((await t.get(`${url}/${r.body[1].id}`)).body).toEqual(r.body[1]);
    const off = await setup([{ purpose: 'public' }]);
    expect((await t.get(off.url)).body[0].active).toBe(false);
  });

  it('addComputeConfigInterface: appended last, with a compute_config_update event; at most three', async () => {
    const { id, url } = await setup([{ purpose: 'public' }]);
    // `active` is accepted and ignored: a reboot into the profile activates.
    const r = await t.post(url, {
      purpose: 'vlan',
      label: 'v1',
      ipam_address: '10.0.0.1/24',
      active: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      purpose: 'vlan',
      label: 'v1',
      ipam_address: '10.0.0.1/24',
      primary: false,
      active: false,
    });
    expect(await updates(id)).toBe(1);
    await t.post(url, { purpose: 'vlan', label: 'v2' });
    expect((await t.get(url)).body.map((i: { label: string | null }) => i.label)).toEqual([
      null,
      'v1',
      'v2',
    ]);
    const fourth = await t.post(url, { purpose: 'vlan', label: 'v3' });
    expect(fourth.body).toEqual({ errors: [{ reason: 'At most 3 interfaces are allowed' }] });
  });

  it('addComputeConfigInterface: the purpose rules: one public, vlan label required and once, vpc subnet looked up', async () => {
    const { url } = await setup([{ purpose: 'public' }, { purpose: 'vlan', label: 'v1' }]);
    expect((await t.post(url, { purpose: 'public' })).body.errors).toEqual([
      { field: 'purpose', reason: 'Only one public interface is allowed' },
    ]);
    expect((await t.post(url, { purpose: 'vlan' })).body.errors).toEqual([
      { field: 'label', reason: 'label is required for a vlan interface' },
    ]);
    expect((await t.post(url, { purpose: 'vlan', label: 'v1' })).body.errors[0].field).toBe(
      'label',
    );
    expect((await t.post(url, { purpose: 'vlan', label: 'bad--label' })).body.errors[0].field).toBe(
      'label',
    );
    expect(
      (await t.post(url, { purpose: 'vlan', label: 'v2', primary: true })).body.errors[0].field,
    ).toBe('primary');
    expect((await t.post(url, { purpose: 'vpc', subnet_id: 1 })).body.errors).toEqual([
      { field: 'subnet_id', reason: 'Subnet not found' },
    ]);
    expect((await t.post(url, {})).body.errors[0].field).toBe('purpose');
  });

  it('addComputeConfigInterface: a vlan ipam_address unique among the instance interfaces, every config', async () => {
    const { id, url } = await setup([
      { purpose: 'vlan', label: 'v1', ipam_address: '10.0.0.1/24' },
    ]);
    const dup = await t.post(url, { purpose: 'vlan', label: 'v2', ipam_address: '10.0.0.1/24' });
    expect(dup.body.errors).toEqual([
      {
        field: 'ipam_address',
        reason: 'ipam_address must be unique among the instance\u2019s interfaces',
      },
    ]);
    const other = await t.post(`/v4/compute/instances/${id}/configs`, {
      label: 'other',
      devices: {},
    });
    const elsewhere = await t.post(
      `/v4/compute/instances/${id}/configs/${other.body.id}/interfaces`,
      {
        purpose: 'vlan',
        label: 'v1',
        ipam_address: '10.0.0.1/24',
      },
    );
    expect(elsewhere.body.errors[0].field).toBe('ipam_address');
    expect(
      (await t.post(url, { purpose: 'vlan', label: 'v2', ipam_address: '10.0.0.300/24' })).body
        .errors[0].field,
    ).toBe('ipam_address');
    expect(
      (await t.post(url, { purpose: 'vlan', label: 'v2', ipam_address: '10.0.0.2/24' })).status,
    ).toBe(200);
  });

  it('addComputeConfigInterface: primary true takes primary from the old primary', async () => {
    const { url } = await setup([{ purpose: 'vlan', label: 'v1' }]);
    // A primary public interface, then a primary vpc one cannot be added (no subnets): update instead.
    const pub = await t.post(url, { purpose: 'public', primary: true });
    expect(pub.body.primary).toBe(true);
    const vpc = await insertVpcInterface(url);
    const r = await t.put(`${url}/${vpc}`, { primary: true });
    expect(r.body.primary).toBe(true);
    expect((await t.get(`${url}/${pub.body.id}`)).body.primary).toBe(false);
  });

  /** A vpc interface, stored directly (VPCs have no endpoints yet). */
  const insertVpcInterface = async (url: string) => {
    const [, , , , instanceId, , configId] = url.split('/');
    const row = await t.ctx.db.db
      .insertInto('config_interfaces')
      .values({
        config_id: Number(configId),
        instance_id: Number(instanceId),
        position: 2,
        purpose: 'vpc',
        label: null,
        ipam_address: null,
        is_primary: 0,
        vpc_id: 7,
        subnet_id: 8,
        ipv4_vpc: '10.1.0.5',
        ipv4_nat_1_1: null,
        ip_ranges: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  };

  it('addComputeConfigInterface: primary true on add clears the old primary', async () => {
    const { id } = await setup([]);
    const cfg = await t.post(`/v4/compute/instances/${id}/configs`, { label: 'c', devices: {} });
    const url = `/v4/compute/instances/${id}/configs/${cfg.body.id}/interfaces`;
    const vpc = await insertVpcInterface(url);
    await t.put(`${url}/${vpc}`, { primary: true });
    const pub = await t.post(url, { purpose: 'public', primary: true });
    expect(pub.body.primary).toBe(true);
    expect((await t.get(`${url}/${vpc}`)).body.primary).toBe(false);
  });

  it('updateComputeConfigInterface: vlan interfaces cannot be updated; public ones only primary', async () => {
    const { id, url } = await setup([{ purpose: 'public' }, { purpose: 'vlan', label: 'v1' }]);
    const [pub, vlan] = (await t.get(url)).body;
    const v = await t.put(`${url}/${vlan.id}`, { primary: false });
    expect(v.status).toBe(400);
    expect(v.body.errors[0].reason).toMatch(/vlan interface cannot be updated/);
    const bad = await t.put(`${url}/${pub.id}`, {
      ipv4: { nat_1_1: 'any' },
      ip_ranges: ['10.0.0.0/24'],
    });
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['ipv4', 'ip_ranges']);
    // purpose is not part of the update body: it never changes.
    const ok = await t.put(`${url}/${pub.id}`, { primary: true, purpose: 'vpc' });
    expect(ok.body).toMatchObject({ id: pub.id, purpose: 'public', primary: true });
    expect(await updates(id)).toBe(1);
  });

  it('updateComputeConfigInterface: a vpc interface keeps its subnet; ipv4 and ip_ranges change', async () => {
    const { id, url } = await setup([{ purpose: 'public' }]);
    const vpc = await insertVpcInterface(url);
    const [publicIpv4] = (await t.get(`/v4/compute/instances/${id}`)).body.ipv4 as string[];
    // subnet_id is not part of the update body: it never changes.
    const r = await t.put(`${url}/${vpc}`, {
      subnet_id: 9,
      ipv4: { nat_1_1: 'any' },
      ip_ranges: ['10.1.0.64/26'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      subnet_id: 8,
      vpc_id: 7,
      // `any` is answered as the address it picks.
      ipv4: { vpc: '10.1.0.5', nat_1_1: publicIpv4 },
      ip_ranges: ['10.1.0.64/26'],
    });
    const cleared = await t.put(`${url}/${vpc}`, { ip_ranges: [] });
    // A VPC interface without ranges shows `[]` (the wire), not null.
    expect(cleared.body.ip_ranges).toEqual([]);
    expect(cleared.body.ipv6).toBeNull();
    expect((await t.put(`${url}/${vpc}`, { ip_ranges: ['nope'] })).body.errors[0].field).toBe(
      'ip_ranges.0',
    );
    expect((await t.put(`${url}/${vpc}`, { ipv4: { vpc: '1.2.3' } })).body.errors[0].field).toBe(
      'ipv4.vpc',
    );
  });

  it('deleteComputeConfigInterface: an active interface cannot be deleted; the others move up', async () => {
    const running = await setup([{ purpose: 'public' }, { purpose: 'vlan', label: 'v1' }], true);
    const [first] = (await t.get(running.url)).body;
    const refused = await t.del(`${running.url}/${first.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toMatch(/active interface cannot be deleted/);

    const off = await setup([
      { purpose: 'public' },
      { purpose: 'vlan', label: 'v1' },
      { purpose: 'vlan', label: 'v2' },
    ]);
    const list = (await t.get(off.url)).body;
    expect((await t.del(`${off.url}/${list[0].id}`)).body).toEqual({});
    expect((await t.get(off.url)).body.map((i: { label: string }) => i.label)).toEqual([
      'v1',
      'v2',
    ]);
    // They are eth0 and eth1 now.
    const positions = await t.ctx.db.db
      .selectFrom('config_interfaces')
      .select('position')
      .where('config_id', '=', off.config)
      .orderBy('position')
      .execute();
    expect(positions.map((r) => r.position)).toEqual([0, 1]);
    expect((await t.get(`${off.url}/${list[0].id}`)).status).toBe(404);
    // Appended after a delete: last again.
    await t.post(off.url, { purpose: 'public' });
    expect((await t.get(off.url)).body.map((i: { label: string | null }) => i.label)).toEqual([
      'v1',
      'v2',
      null,
    ]);
    expect(await updates(off.id)).toBe(2);
  });

  it('orderComputeConfigInterfaces: every current id once, in the new order; not while active', async () => {
    const { id, url } = await setup([
      { purpose: 'public' },
      { purpose: 'vlan', label: 'v1' },
      { purpose: 'vlan', label: 'v2' },
    ]);
    const ids = (await t.get(url)).body.map((i: { id: number }) => i.id);
    const partial = await t.post(`${url}/order`, { ids: [ids[0], ids[1]] });
    expect(partial.body.errors).toEqual([
      { field: 'ids', reason: 'ids must list every interface of the profile exactly once' },
    ]);
    expect((await t.post(`${url}/order`, { ids: [ids[0], ids[0], ids[1]] })).status).toBe(400);
    expect((await t.post(`${url}/order`, { ids: [ids[2], ids[0], ids[1]] })).body).toEqual({});
    expect((await t.get(url)).body.map((i: { id: number }) => i.id)).toEqual([
      ids[2],
      ids[0],
      ids[1],
    ]);
    await t.post(`/v4/compute/instances/${id}/boot`);
    await t.settle();
    const active = await t.post(`${url}/order`, { ids });
    expect(active.status).toBe(400);
    expect(active.body.errors[0].reason).toMatch(/shut it down/);
  });

  it('getComputeConfigInterface: an interface of another config is not found', async () => {
    const a = await setup([{ purpose: 'public' }]);
    const b = await setup([{ purpose: 'public' }]);
    const [iface] = (await t.get(a.url)).body;
    expect((await t.get(`${b.url}/${iface.id}`)).status).toBe(404);
    expect((await t.put(`${b.url}/${iface.id}`, { primary: true })).status).toBe(404);
    expect((await t.del(`${b.url}/${iface.id}`)).status).toBe(404);
  });
});
