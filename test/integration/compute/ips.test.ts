import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const STRONG = 's3cr3t-P4ssw0rd!';
const NEED_JUSTIFICATION = {
  errors: [{ reason: 'Additional IPv4 addresses require technical justification.' }],
};

describe('instance IP addresses', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  async function instance(body: Record<string, unknown> = {}, token?: string): Promise<any> {
    const r = await t.post(
      '/v4/compute/instances',
      { region: 'us-east', type: 'g6-nanode-1', ...body },
      { token },
    );
    expect(r.status).toBe(200);
    return r.body;
  }
  const ips = (id: number) => `/v4/compute/instances/${id}/ips`;
  const events = async (action: string) =>
    (await t.get('/v4/account/events', { filter: { action } })).body.data as any[];

  it('getComputeIPs: public and private IPv4, SLAAC and link-local in the nested shape', async () => {
    const inst = await instance({ private_ip: true });
    const r = await t.get(ips(inst.id));
    expect(r.status).toBe(200);
    const pub = inst.ipv4[0];
    const priv = inst.ipv4[1];
    const assigned = {
      id: inst.id,
      label: inst.label,
      type: 'compute',
      url: `/v4/compute/instances/${inst.id}`,
    };
    expect(priv).toMatch(/^192\.168\.(1[2-9][0-9]|2[0-5][0-9])\.\d+$/);
    expect(r.body.ipv4.public).toEqual([
      {
        address: pub,
        gateway: pub.replace(/\.\d+$/, '.1'),
        subnet_mask: '255.255.255.0',
        prefix: 24,
        type: 'ipv4',
        public: true,
        rdns: `${pub.replace(/\./g, '-')}.ip.computeusercontent.com`,
        compute_id: inst.id,
        region: 'us-east',
        vpc_nat_1_1: null,
        assigned_entity: assigned,
        interface_id: null,
        reserved: false,
      },
    ]);
    expect(r.body.ipv4.private).toEqual([
      {
        address: priv,
        gateway: null,
        subnet_mask: '255.255.128.0',
        prefix: 17,
        type: 'ipv4',
        public: false,
        rdns: null,
        compute_id: inst.id,
        region: 'us-east',
        vpc_nat_1_1: null,
        assigned_entity: assigned,
        interface_id: null,
        reserved: false,
      },
    ]);
    expect(r.body.ipv6.vpc).toEqual([]);
    expect(r.body.ipv4.shared).toEqual([]);
    expect(r.body.ipv4.reserved).toEqual([]);
    expect(r.body.ipv4.vpc).toEqual([]);
    const slaac = inst.ipv6.replace('/128', '');
    const suffix = slaac.split(':').slice(-4).join(':');
    const v6 = {
      gateway: 'fe80::1',
      subnet_mask: 'ffff:ffff:ffff:ffff::',
      prefix: 64,
      type: 'ipv6',
      compute_id: inst.id,
      region: 'us-east',
    };
    expect(r.body.ipv6).toEqual({
      slaac: { address: slaac, public: true, rdns: null, ...v6 },
      link_local: { address: `fe80::${suffix}`, public: false, rdns: null, ...v6 },
      global: [],
      vpc: [],
    });
  });

  it('getComputeIPs: 404 for an instance of another account or without a grant', async () => {
    const inst = await instance();
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'other',
    });
    expect((await t.get(ips(inst.id), { token: other.token })).status).toBe(404);
    const restricted = await createTestUser(t);
    expect((await t.get(ips(inst.id), { token: restricted.token })).status).toBe(404);
  });

  it('addComputeIP: one extra public address, then the real service wording; event compute_addip finished', async () => {
    const inst = await instance();
    const r = await t.post(ips(inst.id), { type: 'ipv4', public: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      type: 'ipv4',
      public: true,
      compute_id: inst.id,
      prefix: 24,
      vpc_nat_1_1: null,
      tags: [],
    });
    expect(r.body.address).not.toBe(inst.ipv4[0]);
    expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.ipv4).toEqual(
      [inst.ipv4[0], r.body.address].sort(),
    );
    const third = await t.post(ips(inst.id), { type: 'ipv4', public: true });
    expect(third.status).toBe(400);
    expect(third.body).toEqual(NEED_JUSTIFICATION);
    const ev = await events('compute_addip');
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ status: 'finished', entity: { type: 'compute', id: inst.id } });
  });

  it('addComputeIP: at most one private address per instance', async () => {
    const inst = await instance();
    const r = await t.post(ips(inst.id), { type: 'ipv4', public: false });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ public: false, prefix: 17, gateway: null, rdns: null });
    const again = await t.post(ips(inst.id), { type: 'ipv4', public: false });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].reason).toMatch(/already has a private IPv4 address/);
  });

  it('addComputeIP: type and public are required; a type other than ipv4 is the recorded refusal', async () => {
    const inst = await instance();
    const r = await t.post(ips(inst.id), {});
    expect(r.status).toBe(400);
    const fields = r.body.errors.map((e: any) => e.field).sort();
    expect(fields).toEqual(['public', 'type']);
    const v6 = await t.post(ips(inst.id), { type: 'ipv6', public: true });
    expect(v6.status).toBe(400);
    expect(v6.body.errors[0].reason).toBe('Only addresses of type ipv4 are currently supported.');
  });

  it('addComputeIP: allowed on a running instance, refused while it is being deleted', async () => {
    const inst = await instance({ image: 'compute/debian12', root_pass: STRONG });
    await t.settle();
    expect((await t.post(ips(inst.id), { type: 'ipv4', public: false })).status).toBe(200);
    await t.del(`/v4/compute/instances/${inst.id}`);
    const r = await t.post(ips(inst.id), { type: 'ipv4', public: true });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ reason: 'Compute busy.' }] });
  });

  it('addComputeIP: a read_only grant is 403', async () => {
    const inst = await instance();
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
    });
    expect((await t.get(ips(inst.id), { token: u.token })).status).toBe(200);
    expect(
      (await t.post(ips(inst.id), { type: 'ipv4', public: true }, { token: u.token })).status,
    ).toBe(403);
  });

  it('getComputeIP: any of the instance addresses, in any spelling; another instance address is 404', async () => {
    const a = await instance({ private_ip: true });
    const b = await instance();
    const pub = await t.get(`${ips(a.id)}/${a.ipv4[0]}`);
    expect(pub.status).toBe(200);
    expect(pub.body.address).toBe(a.ipv4[0]);
    expect((await t.get(`${ips(a.id)}/${a.ipv4[1]}`)).body.public).toBe(false);
    const slaac = a.ipv6.replace('/128', '');
    const upper = await t.get(`${ips(a.id)}/${slaac.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(upper.body).toMatchObject({
      address: slaac,
      type: 'ipv6',
      public: true,
      vpc_nat_1_1: null,
    });
    const ll = (await t.get(ips(a.id))).body.ipv6.link_local.address;
    expect((await t.get(`${ips(a.id)}/${ll}`)).body).toMatchObject({ address: ll, public: false });
    expect((await t.get(`${ips(a.id)}/${b.ipv4[0]}`)).status).toBe(404);
    expect((await t.get(`${ips(a.id)}/${b.ipv6.replace('/128', '')}`)).status).toBe(404);
    expect((await t.get(`${ips(a.id)}/not-an-address`)).status).toBe(404);
  });

  it('updateComputeIP: sets a public rdns, null resets it to the default name; event ipaddress_update', async () => {
    const inst = await instance();
    const url = `${ips(inst.id)}/${inst.ipv4[0]}`;
    const set = await t.put(url, { rdns: 'web.example.com' });
    expect(set.status).toBe(200);
    expect(set.body.rdns).toBe('web.example.com');
    expect((await t.get(url)).body.rdns).toBe('web.example.com');
    const reset = await t.put(url, { rdns: null });
    expect(reset.body.rdns).toBe(`${inst.ipv4[0].replace(/\./g, '-')}.ip.computeusercontent.com`);
    const ev = await events('ipaddress_update');
    expect(ev).toHaveLength(2);
    expect(ev[0]).toMatchObject({
      status: 'notification',
      entity: { type: 'ipaddress', label: inst.ipv4[0] },
    });
    expect(ev[0].secondary_entity).toMatchObject({ type: 'compute', id: inst.id });
  });

  it('updateComputeIP: rdns must be a hostname and is required', async () => {
    const inst = await instance();
    const url = `${ips(inst.id)}/${inst.ipv4[0]}`;
    for (const rdns of [
      '',
      'no spaces.example.com',
      'single',
      'host.123',
      `${'a'.repeat(64)}.example.com`,
    ]) {
      const r = await t.put(url, { rdns });
      expect(r.status, rdns).toBe(400);
      expect(r.body.errors[0].field).toBe('rdns');
    }
    expect((await t.put(url, {})).body.errors[0].field).toBe('rdns');
  });

  it('updateComputeIP: a SLAAC rdns is stored and cleared; link-local and private addresses take none', async () => {
    const inst = await instance({ private_ip: true });
    const slaac = inst.ipv6.replace('/128', '');
    const set = await t.put(`${ips(inst.id)}/${slaac}`, { rdns: 'v6.example.com' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ address: slaac, rdns: 'v6.example.com' });
    expect((await t.get(ips(inst.id))).body.ipv6.slaac.rdns).toBe('v6.example.com');
    expect((await t.put(`${ips(inst.id)}/${slaac}`, { rdns: null })).body.rdns).toBeNull();
    const view = (await t.get(ips(inst.id))).body;
    expect(view.ipv6.slaac.rdns).toBeNull();
    const ll = await t.put(`${ips(inst.id)}/${view.ipv6.link_local.address}`, {
      rdns: 'x.example.com',
    });
    expect(ll.status).toBe(400);
    expect(ll.body.errors[0].field).toBe('rdns');
    const priv = await t.put(`${ips(inst.id)}/${inst.ipv4[1]}`, { rdns: 'x.example.com' });
    expect(priv.status).toBe(400);
  });

  it('removeComputeIP: never the last public address; an extra public or the private one goes, event compute_deleteip', async () => {
    const inst = await instance({ private_ip: true });
    const last = await t.del(`${ips(inst.id)}/${inst.ipv4[0]}`);
    expect(last.status).toBe(400);
    expect(last.body.errors[0].reason).toMatch(/last public IPv4 address/);
    const extra = (await t.post(ips(inst.id), { type: 'ipv4', public: true })).body.address;
    expect((await t.del(`${ips(inst.id)}/${inst.ipv4[0]}`)).body).toEqual({});
    expect((await t.get(`${ips(inst.id)}/${inst.ipv4[0]}`)).status).toBe(404);
    expect((await t.del(`${ips(inst.id)}/${inst.ipv4[1]}`)).status).toBe(200);
    const view = (await t.get(ips(inst.id))).body;
    expect(view.ipv4.public.map((i: any) => i.address)).toEqual([extra]);
    expect(view.ipv4.private).toEqual([]);
    expect(await events('compute_deleteip')).toHaveLength(2);
  });

  it('deleteComputeInstance: releases the addresses and the SLAAC rdns', async () => {
    const inst = await instance({ private_ip: true });
    await t.put(`${ips(inst.id)}/${inst.ipv6.replace('/128', '')}`, { rdns: 'gone.example.com' });
    await t.settle();
    await t.del(`/v4/compute/instances/${inst.id}`);
    await t.settle();
    expect(await t.ctx.db.db.selectFrom('ipv6_rdns').selectAll().execute()).toEqual([]);
    expect((await t.get('/v4/networking/ips')).body.results).toBe(0);
  });

  it('removeComputeIP: IPv6 addresses cannot be deleted', async () => {
    const inst = await instance();
    const r = await t.del(`${ips(inst.id)}/${inst.ipv6.replace('/128', '')}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toBe('Only IPv4 addresses can be deleted.');
  });

  it('removeComputeIP: refused for an address with a 1:1 NAT on an active VPC interface, which the address shows', async () => {
    const inst = await instance({ image: 'compute/debian12', root_pass: STRONG });
    await t.settle();
    const extra = (await t.post(ips(inst.id), { type: 'ipv4', public: true })).body.address;
    const { db } = t.ctx;
    const row = await db.db
      .selectFrom('instances')
      .select('last_booted_config_id')
      .where('id', '=', inst.id)
      .executeTakeFirstOrThrow();
    await db.db
      .insertInto('config_interfaces')
      .values({
        config_id: row.last_booted_config_id as number,
        instance_id: inst.id,
        position: 1,
        purpose: 'vpc',
        label: null,
        ipam_address: null,
        is_primary: 0,
        vpc_id: 7,
        subnet_id: 8,
        ipv4_vpc: '10.0.0.2',
        ipv4_nat_1_1: extra,
        ip_ranges: null,
      })
      .execute();
    expect((await t.get(`${ips(inst.id)}/${extra}`)).body.vpc_nat_1_1).toEqual({
      vpc_id: 7,
      subnet_id: 8,
      address: '10.0.0.2',
    });
    const r = await t.del(`${ips(inst.id)}/${extra}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toMatch(/1:1 NAT/);
    await t.post(`/v4/compute/instances/${inst.id}/shutdown`);
    await t.settle();
    expect((await t.del(`${ips(inst.id)}/${extra}`)).status).toBe(200);
  });

  it('createComputeInstance: a deleted address is handed out again (lowest free address first)', async () => {
    const a = await instance();
    const extra = (await t.post(ips(a.id), { type: 'ipv4', public: true })).body.address;
    await t.del(`${ips(a.id)}/${extra}`);
    const b = await instance();
    expect(b.ipv4[0]).toBe(extra);
  });
});
