import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ipv4ToNum, numToIpv4 } from '../../../src/lib/ip.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** us-east's shipped public pool. */
const BASE = ipv4ToNum('198.18.0.0');
const SIZE = 4096;

describe('IP pools', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  /** Takes every usable public address of us-east (not .0, .1 or .255 of a /24). */
  async function fillUsEast(): Promise<void> {
    const rows = [];
    for (let n = BASE; n < BASE + SIZE; n++) {
      const last = n % 256;
      if (last === 0 || last === 1 || last === 255) continue;
      rows.push({
        account_id: t.admin.accountId,
        instance_id: null,
        region: 'us-east',
        address: numToIpv4(n),
        address_num: n,
        kind: 'public' as const,
        prefix: 24,
        gateway: numToIpv4(n - last + 1),
        subnet_mask: '255.255.255.0',
        rdns: null,
        created: '2026-03-01T12:00:00',
      });
    }
    for (let i = 0; i < rows.length; i += 500) {
      await t.ctx.db.db
        .insertInto('ip_addresses')
        .values(rows.slice(i, i + 500))
        .execute();
    }
  }

  it('createComputeInstance: an exhausted pool is a clear 400, and nothing is created', async () => {
    await fillUsEast();
    const r = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [{ reason: 'No more public IPv4 addresses are available in us-east.' }],
    });
    expect((await t.get('/v4/compute/instances')).body.results).toBe(0);
    // Other regions have their own pools.
    expect(
      (await t.post('/v4/compute/instances', { region: 'eu-west', type: 'g6-nanode-1' })).status,
    ).toBe(200);
  });

  it('createComputeInstance: a freed address is handed out again', async () => {
    await fillUsEast();
    await t.ctx.db.db
      .deleteFrom('ip_addresses')
      .where('address', 'in', ['198.18.5.77', '198.18.9.3'])
      .execute();
    const a = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    expect(a.body.ipv4).toEqual(['198.18.5.77']);
    const b = await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' });
    expect(b.body.ipv4).toEqual(['198.18.9.3']);
    expect(
      (await t.post('/v4/compute/instances', { region: 'us-east', type: 'g6-nanode-1' })).status,
    ).toBe(400);
  });

  it('createComputeInstance: addresses skip the network, gateway and broadcast of each /24', async () => {
    await t.ctx.db.db
      .insertInto('ip_addresses')
      .values(
        Array.from({ length: 253 }, (_, i) => ({
          account_id: t.admin.accountId,
          instance_id: null,
          region: 'us-east',
          address: numToIpv4(BASE + 2 + i),
          address_num: BASE + 2 + i,
          kind: 'public' as const,
          prefix: 24,
          gateway: '198.18.0.1',
          subnet_mask: '255.255.255.0',
          rdns: null,
          created: '2026-03-01T12:00:00',
        })),
      )
      .execute();
    const a = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      private_ip: true,
    });
    expect(a.body.ipv4).toEqual(['198.18.1.2', '192.168.128.1']);
    const view = await t.get(`/v4/compute/instances/${a.body.id}/ips`);
    expect(view.body.ipv4.public[0].gateway).toBe('198.18.1.1');
  });
});
