import { afterEach, describe, expect, it } from 'vitest';
import { envToConfig } from '../../../src/config/config.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { startDnsServer } from './dns-server.js';
import { fieldsOf, instance } from './fixtures.js';

describe('reverse DNS and forward records', () => {
  let t: TestApp | undefined;
  let dns: { close: () => Promise<void> } | undefined;
  afterEach(async () => {
    await t?.close();
    await dns?.close();
    t = undefined;
    dns = undefined;
  });

  it('updateIP: without a configured resolver any valid hostname is accepted', async () => {
    t = await buildTestApp();
    const a = await instance(t);
    const r = await t.put(`/v4/networking/ips/${a.ipv4[0]}`, { rdns: 'nowhere.example.com' });
    expect(r.status).toBe(200);
    expect(r.body.rdns).toBe('nowhere.example.com');
  });

  it('updateIP: with STRATUS_RDNS_RESOLVER the name must have a forward record pointing to the address', async () => {
    const records: Record<string, string[]> = {};
    const server = await startDnsServer(records);
    dns = server;
    t = await buildTestApp({ rdnsResolver: server.address });
    const a = await instance(t);
    const ip = a.ipv4[0] as string;
    const slaac = a.ipv6.split('/')[0] as string;
    records['web.example.com'] = [ip, slaac];
    records['other.example.com'] = ['192.0.2.77'];
    const missing = await t.put(`/v4/networking/ips/${ip}`, { rdns: 'missing.example.com' });
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing)).toEqual(['rdns']);
    expect(missing.body.errors[0].reason).toMatch(/forward DNS \(A\) record pointing to/);
    expect((await t.put(`/v4/networking/ips/${ip}`, { rdns: 'other.example.com' })).status).toBe(
      400,
    );
    const ok = await t.put(`/v4/networking/ips/${ip}`, { rdns: 'web.example.com' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.rdns).toBe('web.example.com');
    const v6 = await t.put(`/v4/networking/ips/${slaac}`, { rdns: 'web.example.com.' });
    expect(v6.status, JSON.stringify(v6.body)).toBe(200);
    expect((await t.put(`/v4/networking/ips/${slaac}`, { rdns: 'other.example.com' })).status).toBe(
      400,
    );
    // Resetting needs no record.
    expect((await t.put(`/v4/networking/ips/${ip}`, { rdns: null })).status).toBe(200);
  });

  it('envToConfig: STRATUS_RDNS_RESOLVER must be a DNS server address', () => {
    const base = { DATABASE_URL: 'sqlite::memory:' };
    expect(envToConfig({ ...base, STRATUS_RDNS_RESOLVER: '192.0.2.53' }).rdnsResolver).toBe(
      '192.0.2.53',
    );
    expect(
      envToConfig({ ...base, STRATUS_RDNS_RESOLVER: '[2001:db8::53]:5353' }).rdnsResolver,
    ).toBe('[2001:db8::53]:5353');
    expect(envToConfig(base).rdnsResolver).toBeUndefined();
    for (const bad of ['dns.example.com', '192.0.2.53:99999', 'x:y'])
      expect(() => envToConfig({ ...base, STRATUS_RDNS_RESOLVER: bad }), bad).toThrow(
        /STRATUS_RDNS_RESOLVER/,
      );
  });
});
