import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instanceHasVpcInterface } from '../../../src/modules/vpcs/vpcs.repository.js';
import { instanceWith, REGION, STRONG, vpc } from './fixtures.js';

describe('vpc interfaces', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const createWith = (interfaces: unknown[], region = REGION) =>
    t.post('/v4/compute/instances', {
      region,
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      booted: false,
      interfaces,
    });
  const vpcIfaceOf = async (url: string) =>
    ((await t.get(url)).body as { purpose: string; id: number }[]).find(
      (i) => i.purpose === 'vpc',
    ) as Record<string, any>;

  it('createComputeInstance: a vpc interface gets vpc_id and the first free address of its subnet', async () => {
    const v = await vpc(t, [['a', '10.0.0.0/29']]);
    const subnetId = v.subnets[0]?.id as number;
    const one = await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnetId, primary: true }]);
    const iface = await vpcIfaceOf(one.url);
    expect(iface).toMatchObject({
      purpose: 'vpc',
      vpc_id: v.id,
      subnet_id: subnetId,
      primary: true,
      label: null,
      ipam_address: null,
      ipv4: { vpc: '10.0.0.2', nat_1_1: null },
      ip_ranges: [],
    });
    // The first two (network, gateway) and last two addresses are never given: .2 to .5 in a /29.
    const got = [iface.ipv4.vpc];
    for (let i = 0; i < 3; i++) {
      const next = await instanceWith(t, [{ purpose: 'vpc', subnet_id: subnetId }]);
      got.push((await vpcIfaceOf(next.url)).ipv4.vpc);
    }
    expect(got).toEqual(['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5']);
    const full = await createWith([{ purpose: 'vpc', subnet_id: subnetId }]);
    expect(full.status).toBe(400);
    expect(full.body.errors).toEqual([
      { field: 'interfaces.0.subnet_id', reason: 'The subnet has no free address' },
    ]);
  });

  it('createComputeInstance: subnet_id required, of the account, in the instance region', async () => {
    expect((await createWith([{ purpose: 'vpc' }])).body.errors).toEqual([
      { field: 'interfaces.0.subnet_id', reason: 'subnet_id is required for a vpc interface' },
    ]);
    expect((await createWith([{ purpose: 'vpc', subnet_id: 999 }])).body.errors).toEqual([
      { field: 'interfaces.0.subnet_id', reason: 'Subnet not found' },
    ]);
    const v = await vpc(t, [['a', '10.0.0.0/24']], { region: 'eu-central' });
    const wrongRegion = await createWith([{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }]);
    expect(wrongRegion.body.errors).toEqual([
      {
        field: 'interfaces.0.subnet_id',
        reason: 'The subnet must be in the same region as the instance',
      },
    ]);
    // Nothing was created by the refused requests.
    expect((await t.get('/v4/compute/instances')).body.results).toBe(0);
    // Another account's subnet is not found.
    const { bootstrapAccount } = await import('../../../src/modules/identity/bootstrap.js');
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'o',
    });
    const r = await t.post(
      '/v4/compute/instances',
      {
        region: 'eu-central',
        type: 'g6-nanode-1',
        interfaces: [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }],
      },
      { token: other.token },
    );
    expect(r.body.errors).toEqual([
      { field: 'interfaces.0.subnet_id', reason: 'Subnet not found' },
    ]);
  });

  it('createComputeInstance: a given ipv4.vpc must be a usable, unused address of the subnet', async () => {
    const v = await vpc(t, [['a', '10.0.0.0/24']]);
    const s = v.subnets[0]?.id;
    const at = async (address: string) =>
      (await createWith([{ purpose: 'vpc', subnet_id: s, ipv4: { vpc: address } }])).body;
    expect((await at('10.0.1.7')).errors).toEqual([
      { field: 'interfaces.0.ipv4.vpc', reason: 'ipv4.vpc must be inside the subnet 10.0.0.0/24' },
    ]);
    for (const reserved of ['10.0.0.0', '10.0.0.1', '10.0.0.254', '10.0.0.255']) {
      expect((await at(reserved)).errors[0].reason).toBe(
        'ipv4.vpc cannot be one of the first two or last two addresses of the subnet',
      );
    }
    expect((await at('not-an-ip')).errors[0].field).toBe('interfaces.0.ipv4.vpc');
    const first = await at('10.0.0.77');
    expect(first.id).toBeGreaterThan(0);
    expect((await at('10.0.0.77')).errors).toEqual([
      { field: 'interfaces.0.ipv4.vpc', reason: 'ipv4.vpc is already in use' },
    ]);
    // An address taken explicitly is skipped by the automatic choice.
    await at('10.0.0.2');
    await t.settle();
    const auto = await instanceWith(t, [{ purpose: 'vpc', subnet_id: s }]);
    expect((await vpcIfaceOf(auto.url)).ipv4.vpc).toBe('10.0.0.3');
  });

  it('createComputeInstance: nat_1_1 "any" maps the public IPv4; a specific address is refused at create', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const specific = await createWith([
      { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: '198.18.0.9' } },
    ]);
    expect(specific.body.errors[0]).toEqual({
      field: 'interfaces.0.ipv4.nat_1_1',
      reason: 'A specific address cannot be set when creating an instance; use "any"',
    });
    const inst = await instanceWith(t, [
      { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: 'any' } },
    ]);
    // `any` is taken as input and answered as the address it picks (the instance's first public
    // IPv4), as the real service answers it: in the list, the view, and the config's view.
    const iface = await vpcIfaceOf(inst.url);
    expect(iface.ipv4.nat_1_1).toBe(inst.ipv4[0]);
    expect((await t.get(`${inst.url}/${iface.id}`)).body.ipv4.nat_1_1).toBe(inst.ipv4[0]);
    const cfg = await t.get(`/v4/compute/instances/${inst.id}/configs/${inst.config}`);
    expect(cfg.body.interfaces[0].ipv4.nat_1_1).toBe(inst.ipv4[0]);
    const ips = await t.get(`/v4/compute/instances/${inst.id}/ips`);
    expect(ips.body.ipv4.public[0].vpc_nat_1_1).toEqual({
      vpc_id: v.id,
      subnet_id: s,
      address: '10.0.0.2',
    });
    expect(ips.body.ipv4.vpc).toEqual([
      expect.objectContaining({ address: '10.0.0.2', nat_1_1: inst.ipv4[0], vpc_id: v.id }),
    ]);
  });

  it('addComputeConfigInterface: nat_1_1 may name a public IPv4 of the instance, no other address', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const a = await instanceWith(t, [{ purpose: 'public' }]);
    const b = await instanceWith(t, [{ purpose: 'public' }]);
    const foreign = await t.post(a.url, {
      purpose: 'vpc',
      subnet_id: s,
      ipv4: { nat_1_1: b.ipv4[0] },
    });
    expect(foreign.body.errors).toEqual([
      {
        field: 'ipv4.nat_1_1',
        reason: 'nat_1_1 must be "any" or a public IPv4 address of this instance',
      },
    ]);
    const own = await t.post(a.url, { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: a.ipv4[0] } });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ vpc_id: v.id, ipv4: { vpc: '10.0.0.2', nat_1_1: a.ipv4[0] } });
    // Removed by an empty string on update.
    const cleared = await t.put(`${a.url}/${own.body.id}`, { ipv4: { nat_1_1: '' } });
    expect(cleared.body.ipv4).toEqual({ vpc: '10.0.0.2', nat_1_1: null });
    const back = await t.put(`${a.url}/${own.body.id}`, { ipv4: { nat_1_1: b.ipv4[0] } });
    expect(back.body.errors[0].field).toBe('ipv4.nat_1_1');
    // `any` on add and on update: answered as the instance's first public IPv4.
    const any = await t.put(`${a.url}/${own.body.id}`, { ipv4: { nat_1_1: 'any' } });
    expect(any.status, JSON.stringify(any.body)).toBe(200);
    expect(any.body.ipv4).toEqual({ vpc: '10.0.0.2', nat_1_1: a.ipv4[0] });
    expect((await t.del(`${a.url}/${own.body.id}`)).status).toBe(200);
    const added = await t.post(a.url, { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: 'any' } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.ipv4.nat_1_1).toBe(a.ipv4[0]);
  });

  it('addComputeConfigInterface: nat_1_1 cannot name an address shared with another instance', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const a = await instanceWith(t, [{ purpose: 'public' }]);
    const b = await instanceWith(t, [{ purpose: 'public' }]);
    const shared = await t.post('/v4/networking/ips/share', { compute_id: b.id, ips: [a.ipv4[0]] });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    const r = await t.post(a.url, { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: a.ipv4[0] } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      {
        field: 'ipv4.nat_1_1',
        reason: 'nat_1_1 cannot be an address shared with another instance',
      },
    ]);
    // Once the share is gone, the address may carry the NAT.
    expect((await t.post('/v4/networking/ips/share', { compute_id: b.id, ips: [] })).status).toBe(
      200,
    );
    const ok = await t.post(a.url, { purpose: 'vpc', subnet_id: s, ipv4: { nat_1_1: a.ipv4[0] } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('addComputeConfigInterface: primary true takes primary from the old primary', async () => {
    const v = await vpc(t);
    const inst = await instanceWith(t, [{ purpose: 'public', primary: true }]);
    const r = await t.post(inst.url, {
      purpose: 'vpc',
      subnet_id: v.subnets[0]?.id,
      primary: true,
    });
    expect(r.body.primary).toBe(true);
    const list = (await t.get(inst.url)).body as { purpose: string; primary: boolean }[];
    expect(list.map((i) => [i.purpose, i.primary])).toEqual([
      ['public', false],
      ['vpc', true],
    ]);
  });

  it('addComputeConfigInterface: active is ignored in requests; true once the instance runs with the profile', async () => {
    const v = await vpc(t);
    const inst = await instanceWith(t, [{ purpose: 'public' }]);
    const r = await t.post(inst.url, { purpose: 'vpc', subnet_id: v.subnets[0]?.id, active: true });
    expect(r.body.active).toBe(false);
    await t.post(`/v4/compute/instances/${inst.id}/boot`);
    await t.settle();
    expect((await vpcIfaceOf(inst.url)).active).toBe(true);
  });

  it('updateComputeConfigInterface: ip_ranges replace, [] clears, omitted unchanged, inside the subnet and free', async () => {
    const v = await vpc(t, [['a', '10.0.0.0/24']]);
    const s = v.subnets[0]?.id;
    const a = await instanceWith(t, [{ purpose: 'vpc', subnet_id: s }]);
    const b = await instanceWith(t, [
      { purpose: 'vpc', subnet_id: s, ip_ranges: ['10.0.0.128/26'] },
    ]);
    const ia = await vpcIfaceOf(a.url);
    const url = `${a.url}/${ia.id}`;
    const set = await t.put(url, { ip_ranges: ['10.0.0.64/27', '10.0.0.96/28'] });
    expect(set.body.ip_ranges).toEqual(['10.0.0.64/27', '10.0.0.96/28']);
    expect((await t.put(url, { primary: false })).body.ip_ranges).toEqual([
      '10.0.0.64/27',
      '10.0.0.96/28',
    ]);
    expect((await t.put(url, { ip_ranges: ['10.0.0.32/27'] })).body.ip_ranges).toEqual([
      '10.0.0.32/27',
    ]);
    const errs = async (ranges: string[]) => (await t.put(url, { ip_ranges: ranges })).body.errors;
    expect(await errs(['10.0.1.0/28'])).toEqual([
      {
        field: 'ip_ranges.0',
        reason: 'The range must be inside the usable addresses of the subnet 10.0.0.0/24',
      },
    ]);
    expect((await errs(['10.0.0.1/28']))[0].reason).toMatch(/canonical CIDR/);
    // Held by the other instance: its range, its address.
    expect(await errs(['10.0.0.160/27'])).toEqual([
      { field: 'ip_ranges.0', reason: 'The range overlaps addresses already in use' },
    ]);
    const bAddress = (await vpcIfaceOf(b.url)).ipv4.vpc as string;
    expect(bAddress).toBe('10.0.0.3');
    expect((await errs(['10.0.0.0/30']))[0].field).toBe('ip_ranges.0');
    // Overlapping each other.
    expect((await errs(['10.0.0.64/27', '10.0.0.64/28']))[0].field).toBe('ip_ranges.1');
    // An address inside another instance's range is taken too.
    const inRange = await t.put(url, { ipv4: { vpc: '10.0.0.130' } });
    expect(inRange.body.errors).toEqual([
      { field: 'ipv4.vpc', reason: 'ipv4.vpc is already in use' },
    ]);
    expect((await t.put(url, { ip_ranges: [] })).body.ip_ranges).toEqual([]);
  });

  it('updateComputeConfigInterface: ipv4.vpc moves to a free address; null keeps it; the subnet never changes', async () => {
    const v = await vpc(t, [
      ['a', '10.0.0.0/24'],
      ['b', '10.0.1.0/24'],
    ]);
    const inst = await instanceWith(t, [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }]);
    const iface = await vpcIfaceOf(inst.url);
    const url = `${inst.url}/${iface.id}`;
    expect((await t.put(url, { ipv4: { vpc: '10.0.0.50' } })).body.ipv4.vpc).toBe('10.0.0.50');
    expect((await t.put(url, { ipv4: { vpc: null } })).body.ipv4.vpc).toBe('10.0.0.50');
    const r = await t.put(url, { subnet_id: v.subnets[1]?.id, ipv4: { vpc: '10.0.0.51' } });
    expect(r.body).toMatchObject({ subnet_id: v.subnets[0]?.id, ipv4: { vpc: '10.0.0.51' } });
    expect((await t.put(url, { ipv4: { vpc: '10.0.1.5' } })).body.errors[0].field).toBe('ipv4.vpc');
  });

  it('updateComputeConfig: interfaces replaced with vpc ones are checked against their subnets', async () => {
    const v = await vpc(t);
    const inst = await instanceWith(t, [{ purpose: 'public' }]);
    const url = `/v4/compute/instances/${inst.id}/configs/${inst.config}`;
    const bad = await t.put(url, {
      interfaces: [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id, ipv4: { vpc: '10.0.0.1' } }],
    });
    expect(bad.body.errors[0].field).toBe('interfaces.0.ipv4.vpc');
    const ok = await t.put(url, { interfaces: [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }] });
    expect(ok.body.interfaces[0]).toMatchObject({ vpc_id: v.id, ipv4: { vpc: '10.0.0.2' } });
    // Another profile of the same instance may use the same address in the subnet.
    const other = await t.post(`/v4/compute/instances/${inst.id}/configs`, {
      label: 'second',
      devices: {},
      interfaces: [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id, ipv4: { vpc: '10.0.0.2' } }],
    });
    expect(other.status).toBe(200);
  });

  it('createComputeInstance: concurrent creates on one subnet get distinct addresses', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const rs = await Promise.all(
      [1, 2, 3, 4].map(() => createWith([{ purpose: 'vpc', subnet_id: s }])),
    );
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const rows = await t.ctx.db.db
      .selectFrom('config_interfaces')
      .select('ipv4_vpc')
      .where('subnet_id', '=', s as number)
      .execute();
    expect(new Set(rows.map((r) => r.ipv4_vpc)).size).toBe(4);
  });

  it('instanceHasVpcInterface: true for an instance with a vpc interface in any profile', async () => {
    const v = await vpc(t);
    const plain = await instanceWith(t, [{ purpose: 'public' }]);
    const withVpc = await instanceWith(t, [{ purpose: 'public' }]);
    expect(await instanceHasVpcInterface(t.ctx.db, withVpc.id)).toBe(false);
    await t.post(`/v4/compute/instances/${withVpc.id}/configs`, {
      label: 'second',
      devices: {},
      interfaces: [{ purpose: 'vpc', subnet_id: v.subnets[0]?.id }],
    });
    expect(await instanceHasVpcInterface(t.ctx.db, withVpc.id)).toBe(true);
    expect(await instanceHasVpcInterface(t.ctx.db, plain.id)).toBe(false);
  });

  it('addComputeConfigInterface: two vpc interfaces of one profile never share an address', async () => {
    const v = await vpc(t);
    const s = v.subnets[0]?.id;
    const inst = await instanceWith(t, [{ purpose: 'vpc', subnet_id: s }]);
    const dup = await t.post(inst.url, { purpose: 'vpc', subnet_id: s, ipv4: { vpc: '10.0.0.2' } });
    expect(dup.body.errors).toEqual([{ field: 'ipv4.vpc', reason: 'ipv4.vpc is already in use' }]);
    const auto = await t.post(inst.url, { purpose: 'vpc', subnet_id: s });
    expect(auto.body.ipv4.vpc).toBe('10.0.0.3');
    // Updating an interface to its own address is no conflict.
    const same = await t.put(`${inst.url}/${auto.body.id}`, { ipv4: { vpc: '10.0.0.3' } });
    expect(same.status).toBe(200);
    const taken = await t.put(`${inst.url}/${auto.body.id}`, { ipv4: { vpc: '10.0.0.2' } });
    expect(taken.body.errors[0].reason).toBe('ipv4.vpc is already in use');
  });
});
