import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envToConfig } from '../../../src/config/config.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance, STRONG } from './fixtures.js';

const RESERVED = '/v4beta/networking/reserved/ips';

async function reserve(t: TestApp, body: Record<string, unknown> = {}, token?: string) {
  return t.post(RESERVED, { region: 'us-east', ...body }, token ? { token } : {});
}

async function reserved(t: TestApp, region = 'us-east'): Promise<string> {
  const r = await reserve(t, { region });
  expect(r.status, r.text).toBe(200);
  return r.body.address;
}

const createBody = (ipv4: unknown, region = 'us-east') => ({
  region,
  type: 'g6-nanode-1',
  image: 'compute/debian12',
  root_pass: STRONG,
  ipv4,
});

const openFacts = (t: TestApp, accountId = t.admin.accountId) =>
  t.ctx.db.db
    .selectFrom('billing_facts')
    .select(['kind', 'entity_type', 'ref', 'hourly_micros'])
    .where('account_id', '=', accountId)
    .where('to_ms', 'is', null)
    .where('kind', 'in', ['reserved_ipv4', 'ipv4'])
    .orderBy('id')
    .execute();

async function actions(t: TestApp, prefix: string) {
  const r = await t.get('/v4/account/events', { filter: { '+order_by': 'id', '+order': 'asc' } });
  return (r.body.data as { action: string; entity: { type: string; label: string } }[])
    .filter((e) => e.action.startsWith(prefix))
    .map((e) => [e.action, e.entity.type, e.entity.label]);
}

describe('reserved IPv4 addresses', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ env: { STRATUS_RESERVED_IPV4_LIMIT: '3' } });
  });
  afterEach(async () => {
    await t.close();
  });

  it('postReserveIp: reserves an unassigned address in a region; listed, viewed, billed hourly, with a reserved_ip_create event', async () => {
    const r = await reserve(t, { tags: ['edge'] });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      address: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/),
      gateway: expect.any(String),
      subnet_mask: '255.255.255.0',
      prefix: 24,
      type: 'ipv4',
      public: true,
      rdns: null,
      compute_id: null,
      interface_id: null,
      region: 'us-east',
      vpc_nat_1_1: null,
      reserved: true,
      assigned_entity: null,
      tags: ['edge'],
    });
    expect((await t.get(`${RESERVED}/${r.body.address}`)).body).toEqual(r.body);
    expect((await t.get(RESERVED)).body).toEqual({ data: [r.body], page: 1, pages: 1, results: 1 });
    expect(await openFacts(t)).toEqual([
      {
        kind: 'reserved_ipv4',
        entity_type: 'reserved_ipv4_address',
        ref: r.body.address,
        hourly_micros: 6800,
      },
    ]);
    expect(await actions(t, 'reserved_ip')).toEqual([
      ['reserved_ip_create', 'ipaddress', r.body.address],
    ]);
  });

  it('postReserveIp: a region that does not exist or a bad tag is refused naming the field, and nothing is reserved', async () => {
    const bad = await reserve(t, { region: 'nowhere-1', tags: ['x'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'region',
      'tags',
    ]);
    expect((await t.post(RESERVED, {})).body.errors[0].field).toBe('region');
    expect((await t.get(RESERVED)).body.results).toBe(0);
  });

  it('postReserveIp: beyond the account limit, the recorded refusal', async () => {
    for (let i = 0; i < 3; i++) await reserved(t);
    const r = await reserve(t);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [
        {
          reason:
            'Additional Reserved IPv4 addresses require technical justification.  Please contact support describing your requirement.',
        },
      ],
    });
    expect((await t.get(RESERVED)).body.results).toBe(3);
  });

  it('getReservedIpTypes: the hourly price of a reserved address', async () => {
    const r = await t.get(`${RESERVED}/types`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        {
          id: 'reserved-ipv4',
          label: 'Reserved IPv4',
          price: { hourly: 0.0068, monthly: null },
          region_prices: [],
          transfer: 0,
        },
      ],
      page: 1,
      pages: 1,
      results: 1,
    });
  });

  it('putReservedIp: replaces the tags; GET /tags/{label} lists the address; X-Filter on tags and region', async () => {
    const a = await reserved(t);
    await reserved(t, 'eu-west');
    const r = await t.put(`${RESERVED}/${a}`, { tags: ['blue', 'green'] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.tags).toEqual(['blue', 'green']);
    const tagged = await t.get('/v4/tags/blue');
    expect(tagged.body.data).toEqual([{ type: 'reserved_ipv4_address', data: r.body }]);
    expect(
      (await t.get(RESERVED, { filter: { tags: 'green' } })).body.data.map((i: any) => i.address),
    ).toEqual([a]);
    expect((await t.get(RESERVED, { filter: { region: 'eu-west' } })).body.results).toBe(1);
    expect((await t.put(`${RESERVED}/${a}`, { tags: [] })).body.tags).toEqual([]);
    expect((await t.get('/v4/tags/blue')).body.data).toEqual([]);
  });

  it('createTag: reserved addresses are named by their address; an address not reserved by the account is refused', async () => {
    const a = await reserved(t);
    const ok = await t.post('/v4/tags', { label: 'prod', reserved_ipv4_addresses: [a] });
    expect(ok.status, ok.text).toBe(200);
    expect((await t.get(`${RESERVED}/${a}`)).body.tags).toEqual(['prod']);
    const bad = await t.post('/v4/tags', {
      label: 'other',
      reserved_ipv4_addresses: ['192.0.2.77'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('reserved_ipv4_addresses');
    expect((await t.get('/v4/tags/other')).status).toBe(404);
  });

  it('deleteReservedIp: releases the address (404 afterwards, as recorded), ends its bill, with a reserved_ip_delete event', async () => {
    const a = await reserved(t);
    const r = await t.del(`${RESERVED}/${a}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({});
    expect((await t.get(`${RESERVED}/${a}`)).status).toBe(404);
    const again = await t.del(`${RESERVED}/${a}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ errors: [{ reason: 'Not found' }] });
    expect((await t.get('/v4/networking/ips', { filter: { address: a } })).body.results).toBe(0);
    expect(await openFacts(t)).toEqual([]);
    expect((await actions(t, 'reserved_ip')).map((e) => e[0])).toEqual([
      'reserved_ip_create',
      'reserved_ip_delete',
    ]);
  });

  it('getIPs: an unassigned reserved address is listed with compute_id null; X-Filter on reserved', async () => {
    const inst = await instance(t);
    const a = await reserved(t);
    expect((await t.put(`${RESERVED}/${a}`, { tags: ['edge-lb'] })).status).toBe(200);
    const all = await t.get('/v4/networking/ips', { filter: { type: 'ipv4' } });
    expect(all.body.data.map((i: any) => i.address).sort()).toEqual([a, inst.ipv4[0]].sort());
    expect(all.body.data.find((i: any) => i.address === inst.ipv4[0]).tags).toBeUndefined();
    const only = await t.get('/v4/networking/ips', { filter: { reserved: true } });
    expect(only.body.data).toEqual([
      expect.objectContaining({
        address: a,
        tags: ['edge-lb'],
        compute_id: null,
        assigned_entity: null,
        reserved: true,
        rdns: null,
      }),
    ]);
    const view = await t.get(`/v4/networking/ips/${a}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ address: a, reserved: true, compute_id: null });
  });

  it('createCompute: ipv4 names a reserved address that becomes the public address; the instance is billed no extra address', async () => {
    const a = await reserved(t);
    const r = await t.post('/v4/compute/instances', createBody([a]));
    expect(r.status, r.text).toBe(200);
    expect(r.body.ipv4).toEqual([a]);
    await t.settle();
    const held = await t.get(`${RESERVED}/${a}`);
    expect(held.body).toMatchObject({
      compute_id: r.body.id,
      reserved: true,
      rdns: `${a.replace(/\./g, '-')}.ip.computeusercontent.com`,
      assigned_entity: {
        id: r.body.id,
        label: r.body.label,
        type: 'compute',
        url: `/v4/compute/instances/${r.body.id}`,
      },
    });
    const ips = await t.get(`/v4/compute/instances/${r.body.id}/ips`);
    expect(ips.body.ipv4.public).toEqual([expect.objectContaining({ address: a, reserved: true })]);
    expect((await openFacts(t)).map((f) => f.kind)).toEqual(['reserved_ipv4']);
    expect(await actions(t, 'reserved_ip_assign')).toEqual([
      ['reserved_ip_assign', 'ipaddress', a],
    ]);
  });

  it('createCompute: ipv4 refusals as recorded (several, empty, not reserved, held, other region); no instance is made', async () => {
    const a = await reserved(t);
    const west = await reserved(t, 'eu-west');
    const single = 'Must provide a single valid reserved ipv4 address';
    const cases: [unknown, string][] = [
      [[a, west], single],
      [[''], single],
      [['192.0.2.1'], single],
      [[west], 'Address must belong to same region as compute.'],
    ];
    for (const [ipv4, reason] of cases) {
      const r = await t.post('/v4/compute/instances', createBody(ipv4));
      expect(r.status, JSON.stringify(ipv4)).toBe(400);
      expect(r.body).toEqual({ errors: [{ field: 'ipv4', reason }] });
    }
    expect((await t.post('/v4/compute/instances', createBody([a]))).status).toBe(200);
    const held = await t.post('/v4/compute/instances', createBody([a]));
    expect(held.body).toEqual({
      errors: [{ field: 'ipv4', reason: 'Address must be currently unassigned.' }],
    });
    expect((await t.get('/v4/compute/instances')).body.results).toBe(1);
  });

  it('addComputeIP: address assigns a reserved unassigned address; the recorded refusals', async () => {
    const inst = await instance(t);
    const a = await reserved(t);
    const west = await reserved(t, 'eu-west');
    const add = (body: Record<string, unknown>) =>
      t.post(`/v4/compute/instances/${inst.id}/ips`, { type: 'ipv4', public: true, ...body });
    const unassigned = 'Address must be reserved and must be currently unassigned.';
    const expectations: [Record<string, unknown>, unknown[]][] = [
      [{ address: '' }, [{ field: 'address', reason: 'Must provide a valid reserved address' }]],
      [
        { address: '12345' },
        [{ field: 'address', reason: 'Must provide a valid reserved address' }],
      ],
      [
        { address: a, public: false },
        [{ field: 'address', reason: 'Cannot reserve a private address.' }],
      ],
      [{ address: inst.ipv4[0] }, [{ field: 'address', reason: unassigned }]],
      [
        { address: west },
        [{ field: 'address', reason: 'Address must belong to same region as compute.' }],
      ],
      [
        { address: '192.0.2.200', type: 'ipv6' },
        [
          { reason: 'Only addresses of type ipv4 are currently supported.' },
          { field: 'address', reason: unassigned },
        ],
      ],
    ];
    for (const [body, errors] of expectations) {
      const r = await add(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body, JSON.stringify(body)).toEqual({ errors });
    }
    const ok = await add({ address: a });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ address: a, compute_id: inst.id, reserved: true });
    const ips = await t.get(`/v4/compute/instances/${inst.id}/ips`);
    expect(ips.body.ipv4.public.map((i: any) => i.address)).toContain(a);
    expect((await add({ address: a })).body.errors).toEqual([
      { field: 'address', reason: unassigned },
    ]);
  });

  it('deleteCompute: its reserved address stays reserved (unassigned, still billed); its other addresses go', async () => {
    const a = await reserved(t);
    const r = await t.post('/v4/compute/instances', createBody([a]));
    await t.settle();
    expect((await t.del(`/v4/compute/instances/${r.body.id}`)).status).toBe(200);
    await t.settle();
    const after = await t.get(`${RESERVED}/${a}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({
      compute_id: null,
      assigned_entity: null,
      reserved: true,
      rdns: null,
    });
    expect(await openFacts(t)).toEqual([
      expect.objectContaining({ kind: 'reserved_ipv4', ref: a }),
    ]);
    expect((await actions(t, 'reserved_ip_unassign')).map((e) => e[2])).toEqual([a]);
    // It can be used again.
    expect((await t.post('/v4/compute/instances', createBody([a]))).status).toBe(200);
  });

  it('migrateComputeInstance: a data-center move leaves the reserved address reserved and unassigned in its region; the instance gets a new one', async () => {
    const a = await reserved(t);
    const r = await t.post('/v4/compute/instances', createBody([a]));
    await t.settle();
    const m = await t.post(`/v4/compute/instances/${r.body.id}/migrate`, { region: 'us-central' });
    expect(m.status, m.text).toBe(200);
    await t.settle();
    const after = (await t.get(`/v4/compute/instances/${r.body.id}`)).body;
    expect(after.region).toBe('us-central');
    expect(after.ipv4).toHaveLength(1);
    expect(after.ipv4[0]).not.toBe(a);
    expect((await t.get(`${RESERVED}/${a}`)).body).toMatchObject({
      region: 'us-east',
      compute_id: null,
      reserved: true,
    });
  });

  it('deleteComputeIP: removing a reserved address from its instance unassigns it; it stays reserved', async () => {
    const inst = await instance(t);
    const a = await reserved(t);
    expect(
      (
        await t.post(`/v4/compute/instances/${inst.id}/ips`, {
          type: 'ipv4',
          public: true,
          address: a,
        })
      ).status,
    ).toBe(200);
    const r = await t.del(`/v4/compute/instances/${inst.id}/ips/${a}`);
    expect(r.status, r.text).toBe(200);
    expect((await t.get(`${RESERVED}/${a}`)).body).toMatchObject({
      compute_id: null,
      reserved: true,
    });
  });

  it('allocateIP: reserved with a region or for an instance; the recorded refusals', async () => {
    const inst = await instance(t);
    const post = (body: Record<string, unknown>) => t.post('/v4/networking/ips', body);
    const refusals: [Record<string, unknown>, unknown][] = [
      [
        { type: 'ipv4', public: true, reserved: true },
        [{ reason: 'A datacenter or a Compute must be provided when reserving an address.' }],
      ],
      [
        { type: 'ipv4', public: false, reserved: true, compute_id: inst.id, region: 'us-east' },
        [{ field: 'public', reason: 'Cannot reserve a private address.' }],
      ],
      [
        { type: 'ipv6', public: true, reserved: true, compute_id: inst.id },
        [{ reason: 'Only addresses of type ipv4 are currently supported.' }],
      ],
      [
        { type: 'ipv4', public: true, reserved: true, compute_id: 99999, region: 'us-east' },
        [{ field: 'compute_id', reason: 'Compute is not active' }],
      ],
      [
        { type: 'ipv4', public: true, reserved: true, compute_id: inst.id, region: 'eu-west' },
        [{ field: 'region', reason: "Region passed in must match Compute's region." }],
      ],
    ];
    for (const [body, errors] of refusals) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body, JSON.stringify(body)).toEqual({ errors });
    }
    const free = await post({ type: 'ipv4', public: true, reserved: true, region: 'eu-west' });
    expect(free.status, free.text).toBe(200);
    expect(free.body).toMatchObject({ region: 'eu-west', reserved: true, compute_id: null });
    const held = await post({ type: 'ipv4', public: true, reserved: true, compute_id: inst.id });
    expect(held.status, held.text).toBe(200);
    expect(held.body).toMatchObject({ region: 'us-east', reserved: true, compute_id: inst.id });
    expect((await t.get(RESERVED)).body.results).toBe(2);
  });

  it('updateIP: reserved true keeps an instance’s address; false ends the reservation (the address stays on its instance, an unassigned one is released)', async () => {
    const inst = await instance(t);
    const mine = inst.ipv4[0];
    const up = await t.put(`/v4/networking/ips/${mine}`, { reserved: true });
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({ address: mine, reserved: true, compute_id: inst.id });
    expect((await t.get(RESERVED)).body.data.map((i: any) => i.address)).toEqual([mine]);
    expect((await openFacts(t)).map((f) => f.kind)).toEqual(['reserved_ipv4']);
    const down = await t.put(`/v4/networking/ips/${mine}`, { reserved: false });
    expect(down.status, down.text).toBe(200);
    expect(down.body).toMatchObject({ address: mine, reserved: false, compute_id: inst.id });
    expect((await t.get(RESERVED)).body.results).toBe(0);
    const free = await reserved(t);
    const gone = await t.put(`/v4/networking/ips/${free}`, { reserved: false });
    expect(gone.status, gone.text).toBe(200);
    expect((await t.get(`/v4/networking/ips/${free}`)).status).toBe(404);
    const badRdns = await t.put(`/v4/networking/ips/${mine}`, {
      rdns: 'sample rdns',
      reserved: true,
    });
    expect(badRdns.status).toBe(400);
    expect(badRdns.body.errors[0].field).toBe('rdns');
    expect((await t.get(RESERVED)).body.results).toBe(0);
  });

  it('assignIPs: an unassigned reserved address can be assigned to an instance of its region', async () => {
    const inst = await instance(t);
    const a = await reserved(t);
    const r = await t.post('/v4/networking/ips/assign', {
      region: 'us-east',
      assignments: [{ address: a, compute_id: inst.id }],
    });
    expect(r.status, r.text).toBe(200);
    expect((await t.get(`${RESERVED}/${a}`)).body).toMatchObject({
      compute_id: inst.id,
      reserved: true,
    });
  });

  it('createServiceTransfer: an instance holding a reserved address is refused', async () => {
    const a = await reserved(t);
    const r = await t.post('/v4/compute/instances', createBody([a]));
    await t.settle();
    const tr = await t.post('/v4/account/service-transfers', {
      entities: { computes: [r.body.id] },
    });
    expect(tr.status).toBe(400);
    expect(tr.body.errors[0].reason).toMatch(/reserved IPv4/);
  });

  it('reserved addresses: a restricted user cannot reserve, tag or release; it sees those of the instances it may see', async () => {
    const inst = await instance(t);
    const a = await reserved(t);
    const b = await reserved(t);
    expect(
      (
        await t.post(`/v4/compute/instances/${inst.id}/ips`, {
          type: 'ipv4',
          public: true,
          address: a,
        })
      ).status,
    ).toBe(200);
    const u = await createTestUser(t, {
      grants: [{ type: 'compute', id: inst.id, permissions: 'read_write' }],
    });
    expect((await reserve(t, {}, u.token)).status).toBe(403);
    const list = await t.get(RESERVED, { token: u.token });
    expect(list.body.data.map((i: any) => i.address)).toEqual([a]);
    expect((await t.get(`${RESERVED}/${b}`, { token: u.token })).status).toBe(404);
    expect((await t.put(`${RESERVED}/${a}`, { tags: ['x1x'] }, { token: u.token })).status).toBe(
      403,
    );
    expect((await t.del(`${RESERVED}/${a}`, { token: u.token })).status).toBe(403);
    expect((await t.get(RESERVED)).body.results).toBe(2);
  });

  it('null optional fields mean not given (reserve, update, create, add, allocate, updateIP)', async () => {
    const r = await reserve(t, { tags: null });
    expect(r.status, r.text).toBe(200);
    expect(r.body.tags).toEqual([]);
    expect((await t.put(`${RESERVED}/${r.body.address}`, { tags: null })).status).toBe(200);
    const inst = await t.post('/v4/compute/instances', createBody(null));
    expect(inst.status, inst.text).toBe(200);
    await t.settle();
    const add = await t.post(`/v4/compute/instances/${inst.body.id}/ips`, {
      type: 'ipv4',
      public: true,
      address: null,
    });
    expect(add.status, add.text).toBe(200);
    expect(add.body.reserved).toBe(false);
    const alloc = await t.post('/v4/networking/ips', {
      type: 'ipv4',
      public: false,
      compute_id: inst.body.id,
      reserved: null,
      region: null,
    });
    expect(alloc.status, alloc.text).toBe(200);
    expect(alloc.body).toMatchObject({ public: false, reserved: false });
    const up = await t.put(`/v4/networking/ips/${inst.body.ipv4[0]}`, { reserved: null });
    expect(up.status, up.text).toBe(200);
    expect((await t.get(RESERVED)).body.results).toBe(1);
  });

  it('envToConfig: STRATUS_RESERVED_IPV4_LIMIT is a count (10 by default)', () => {
    const base = { DATABASE_URL: 'sqlite::memory:' };
    expect(envToConfig(base).reservedIpv4Limit).toBe(10);
    expect(envToConfig({ ...base, STRATUS_RESERVED_IPV4_LIMIT: '0' }).reservedIpv4Limit).toBe(0);
    for (const bad of ['-1', 'many', '1.5'])
      expect(() => envToConfig({ ...base, STRATUS_RESERVED_IPV4_LIMIT: bad }), bad).toThrow(
        /STRATUS_RESERVED_IPV4_LIMIT/,
      );
  });
});
