import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

describe('networking IP addresses', () => {
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
  const slaacOf = (inst: any): string => inst.ipv6.replace('/128', '');

  it('getIPs: public IPv4, SLAAC and link-local addresses of the account, never private ones', async () => {
    const a = await instance({ private_ip: true });
    const b = await instance({ region: 'eu-west' });
    const r = await t.get('/v4/networking/ips');
    expect(r.status).toBe(200);
    expect(r.body.results).toBe(6);
    const addresses = r.body.data.map((i: any) => i.address);
    expect(addresses).not.toContain(a.ipv4[1]);
    expect(addresses.slice(0, 2)).toEqual([a.ipv4[0], b.ipv4[0]]);
    expect(addresses).toContain(slaacOf(a));
    expect(addresses).toContain(slaacOf(b));
    const pub = r.body.data[0];
    expect(pub).toEqual({
      address: a.ipv4[0],
      gateway: a.ipv4[0].replace(/\.\d+$/, '.1'),
      subnet_mask: '255.255.255.0',
      prefix: 24,
      type: 'ipv4',
      public: true,
      rdns: `${a.ipv4[0].replace(/\./g, '-')}.ip.computeusercontent.com`,
      compute_id: a.id,
      region: 'us-east',
      vpc_nat_1_1: null,
      assigned_entity: {
        id: a.id,
        label: a.label,
        type: 'compute',
        url: `/v4/compute/instances/${a.id}`,
      },
      interface_id: null,
      reserved: false,
      tags: [],
    });
    const ll = r.body.data.find(
      (i: any) => i.address.startsWith('fe80::') && i.compute_id === b.id,
    );
    expect(ll).toMatchObject({
      type: 'ipv6',
      public: false,
      prefix: 64,
      gateway: 'fe80::1',
      region: 'eu-west',
      rdns: null,
    });
    const view = await t.get(`/v4/compute/instances/${b.id}/ips`);
    expect(ll.address).toBe(view.body.ipv6.link_local.address);
  });

  it('getIPs: pages in SQL over the union', async () => {
    for (let i = 0; i < 10; i++) await instance();
    const p1 = await t.get('/v4/networking/ips?page_size=25');
    expect(p1.body).toMatchObject({ page: 1, pages: 2, results: 30 });
    expect(p1.body.data).toHaveLength(25);
    const p2 = await t.get('/v4/networking/ips?page_size=25&page=2');
    expect(p2.body.data).toHaveLength(5);
    const all = [...p1.body.data, ...p2.body.data].map((i: any) => i.address);
    expect(new Set(all).size).toBe(30);
  });

  it('getIPs: filters on address, prefix, type, rdns and region, and orders by them', async () => {
    const a = await instance();
    const b = await instance({ region: 'eu-west' });
    await t.put(`/v4/networking/ips/${slaacOf(a)}`, { rdns: 'six.example.com' });
    const data = async (filter: unknown) =>
      (await t.get('/v4/networking/ips', { filter })).body.data as any[];
    expect((await data({ type: 'ipv4' })).map((i) => i.address)).toEqual([a.ipv4[0], b.ipv4[0]]);
    expect((await data({ region: 'eu-west' })).map((i) => i.compute_id)).toEqual([
      b.id,
      b.id,
      b.id,
    ]);
    expect((await data({ address: b.ipv4[0] })).map((i) => i.address)).toEqual([b.ipv4[0]]);
    expect((await data({ prefix: 64 })).length).toBe(4);
    expect((await data({ rdns: 'six.example.com' })).map((i) => i.address)).toEqual([slaacOf(a)]);
    expect((await data({ rdns: { '+contains': 'computeusercontent' } })).length).toBe(2);
    const desc = await data({ type: 'ipv4', '+order_by': 'address', '+order': 'desc' });
    expect(desc.map((i) => i.address)).toEqual([b.ipv4[0], a.ipv4[0]].sort().reverse());
    const bad = await t.get('/v4/networking/ips', { filter: { public: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({ reason: 'Cannot filter on public', field: 'X-Filter' });
  });

  it('getIPs: skip_ipv6_rdns=true gives null rdns on IPv6 addresses only', async () => {
    const a = await instance();
    await t.put(`/v4/networking/ips/${slaacOf(a)}`, { rdns: 'six.example.com' });
    const find = (data: any[], address: string) => data.find((i) => i.address === address);
    const full = (await t.get('/v4/networking/ips')).body.data;
    expect(find(full, slaacOf(a)).rdns).toBe('six.example.com');
    const skipped = (await t.get('/v4/networking/ips?skip_ipv6_rdns=true')).body.data;
    expect(find(skipped, slaacOf(a)).rdns).toBeNull();
    expect(find(skipped, a.ipv4[0]).rdns).toMatch(/ip\.computeusercontent\.com$/);
  });

  it('getIPs: a restricted user sees addresses of instances it has a grant on', async () => {
    const a = await instance();
    const b = await instance();
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: b.id, permissions: 'read_only' }],
    });
    const r = await t.get('/v4/networking/ips', { token: u.token });
    expect(r.body.results).toBe(3);
    expect(r.body.data.every((i: any) => i.compute_id === b.id)).toBe(true);
    expect((await t.get(`/v4/networking/ips/${a.ipv4[0]}`, { token: u.token })).status).toBe(404);
    expect((await t.get(`/v4/networking/ips/${b.ipv4[0]}`, { token: u.token })).status).toBe(200);
    expect(
      (await t.put(`/v4/networking/ips/${b.ipv4[0]}`, { rdns: null }, { token: u.token })).status,
    ).toBe(403);
  });

  it('getIPs: needs ips:read_only', async () => {
    const u = await createTestUser(t, { restricted: false, scopes: 'computes:read_write' });
    expect((await t.get('/v4/networking/ips', { token: u.token })).status).toBe(401);
  });

  it('getIP: any address of the account, private ones included; another account is 404', async () => {
    const a = await instance({ private_ip: true });
    expect((await t.get(`/v4/networking/ips/${a.ipv4[0]}`)).body).toMatchObject({
      public: true,
      compute_id: a.id,
    });
    expect((await t.get(`/v4/networking/ips/${a.ipv4[1]}`)).body).toMatchObject({
      public: false,
      prefix: 17,
    });
    expect((await t.get(`/v4/networking/ips/${slaacOf(a)}`)).body).toMatchObject({
      type: 'ipv6',
      compute_id: a.id,
    });
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'other',
    });
    expect((await t.get(`/v4/networking/ips/${a.ipv4[0]}`, { token: other.token })).status).toBe(
      404,
    );
    expect((await t.get(`/v4/networking/ips/${slaacOf(a)}`, { token: other.token })).status).toBe(
      404,
    );
    expect((await t.get('/v4/networking/ips/198.18.250.250')).status).toBe(404);
  });

  it('updateIP: sets and resets rdns through the networking path', async () => {
    const a = await instance();
    const url = `/v4/networking/ips/${a.ipv4[0]}`;
    expect((await t.put(url, { rdns: 'mail.example.com' })).body.rdns).toBe('mail.example.com');
    expect((await t.get(`/v4/compute/instances/${a.id}/ips/${a.ipv4[0]}`)).body.rdns).toBe(
      'mail.example.com',
    );
    expect((await t.put(url, { rdns: null })).body.rdns).toMatch(/\.ip\.computeusercontent\.com$/);
    expect((await t.put(url, { rdns: 'bad host' })).status).toBe(400);
  });

  it('allocateIP: allocates for compute_id with the same rules', async () => {
    const a = await instance();
    const r = await t.post('/v4/networking/ips', { compute_id: a.id, type: 'ipv4', public: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      type: 'ipv4',
      public: true,
      compute_id: a.id,
      region: 'us-east',
    });
    const more = await t.post('/v4/networking/ips', {
      compute_id: a.id,
      type: 'ipv4',
      public: true,
    });
    expect(more.body).toEqual({
      errors: [{ reason: 'Additional IPv4 addresses require technical justification.' }],
    });
    const missing = await t.post('/v4/networking/ips', {
      compute_id: 999999,
      type: 'ipv4',
      public: true,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('compute_id');
    const noBody = await t.post('/v4/networking/ips', {});
    expect(noBody.body.errors.map((e: any) => e.field).sort()).toEqual([
      'compute_id',
      'public',
      'type',
    ]);
  });

  it('allocateIP: needs ips:read_write and computes:read_write', async () => {
    const a = await instance();
    const ipsOnly = await createTestUser(t, {
      restricted: false,
      scopes: 'ips:read_write computes:read_only',
    });
    const r = await t.post(
      '/v4/networking/ips',
      { compute_id: a.id, type: 'ipv4', public: false },
      { token: ipsOnly.token },
    );
    expect(r.status).toBe(401);
    const both = await createTestUser(t, {
      restricted: false,
      scopes: 'ips:read_write computes:read_write',
    });
    const ok = await t.post(
      '/v4/networking/ips',
      { compute_id: a.id, type: 'ipv4', public: false },
      { token: both.token },
    );
    expect(ok.status).toBe(200);
  });
});
