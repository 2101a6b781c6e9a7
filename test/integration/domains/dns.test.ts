import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DnsListener } from '../../../src/modules/domains/dns/server.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { ask, domain, failure, record, resolver, transfer } from './fixtures.js';

describe('the authoritative DNS server', () => {
  let t: TestApp;
  let dns: DnsListener;
  beforeEach(async () => {
    t = await buildTestApp();
    dns = await t.ctx.areas.domains.dns.listen('127.0.0.1', 0);
  });
  afterEach(async () => {
    await dns.close();
    await t.close();
  });

  it('dns: every record type answers as set, with its TTL (node resolver)', async () => {
    const d = await domain(t, 'stratus.test', { ttl_sec: 3600 });
    await record(t, d.id, { type: 'A', name: 'www', target: '192.0.2.10', ttl_sec: 300 });
    await record(t, d.id, { type: 'AAAA', name: 'www', target: '2001:db8::10' });
    await record(t, d.id, { type: 'MX', name: '', target: 'mail', priority: 10 });
    await record(t, d.id, { type: 'A', name: 'mail', target: '192.0.2.25' });
    await record(t, d.id, { type: 'CNAME', name: 'alias', target: 'www' });
    await record(t, d.id, { type: 'TXT', name: '', target: 'v=spf1 -all' });
    const long = 'x'.repeat(300);
    await record(t, d.id, { type: 'TXT', name: 'long', target: long });
    await record(t, d.id, {
      type: 'SRV',
      service: 'sip',
      protocol: 'tcp',
      priority: 10,
      weight: 5,
      port: 5060,
      target: 'www',
    });
    await record(t, d.id, { type: 'CAA', name: '', tag: 'issue', target: 'letsencrypt.org' });
    const rev = await domain(t, '2.0.192.in-addr.arpa');
    await record(t, rev.id, { type: 'PTR', name: '10', target: 'www.stratus.test.' });
    const r = resolver(dns.port);

    expect(await r.resolve4('www.stratus.test', { ttl: true })).toEqual([
      { address: '192.0.2.10', ttl: 300 },
    ]);
    expect(await r.resolve6('www.stratus.test', { ttl: true })).toEqual([
      { address: '2001:db8::10', ttl: 3600 },
    ]);
    expect(await r.resolveMx('stratus.test')).toEqual([
      { exchange: 'mail.stratus.test', priority: 10 },
    ]);
    expect(await r.resolveCname('alias.stratus.test')).toEqual(['www.stratus.test']);
    // The CNAME is followed inside the zone.
    expect(await r.resolve4('alias.stratus.test')).toEqual(['192.0.2.10']);
    expect(await r.resolveTxt('stratus.test')).toEqual([['v=spf1 -all']]);
    expect(await r.resolveTxt('long.stratus.test')).toEqual([['x'.repeat(255), 'x'.repeat(45)]]);
    expect(await r.resolveSrv('_sip._tcp.stratus.test')).toEqual([
      { name: 'www.stratus.test', port: 5060, priority: 10, weight: 5 },
    ]);
    expect(await r.resolveCaa('stratus.test')).toEqual([{ critical: 0, issue: 'letsencrypt.org' }]);
    expect(await r.reverse('192.0.2.10')).toEqual(['www.stratus.test']);
    expect((await r.resolveNs('stratus.test')).sort()).toEqual(
      ['ns1', 'ns2', 'ns3', 'ns4', 'ns5'].map((n) => `${n}.compute.com`),
    );
    const soa = await r.resolveSoa('stratus.test');
    expect(soa).toMatchObject({
      nsname: 'ns1.compute.com',
      hostmaster: 'admin.stratus.test',
      refresh: 14400,
      retry: 14400,
      expire: 1209600,
      minttl: 3600,
    });
    expect(soa.serial).toBeGreaterThan(2026030100);
    // MX answers carry the mail host's address in the additional section, with AA set.
    const raw = await ask(dns.port, 'stratus.test', 'MX');
    expect(raw.flag_aa).toBe(true);
    expect(raw.additionals?.map((a) => [a.type, a.name, 'data' in a ? a.data : null])).toEqual([
      ['A', 'mail.stratus.test', '192.0.2.25'],
    ]);
  });

  it('dns: NXDOMAIN and NODATA as an authoritative server gives them; other zones are refused', async () => {
    const d = await domain(t, 'neg.test');
    await record(t, d.id, { type: 'A', name: 'www', target: '192.0.2.10' });
    await record(t, d.id, { type: 'A', name: 'deep.branch', target: '192.0.2.11' });
    await record(t, d.id, { type: 'A', name: '*.wild', target: '192.0.2.99' });
    const r = resolver(dns.port);
    expect(await failure(r.resolve4('nothing.neg.test'))).toBe('ENOTFOUND');
    expect(await failure(r.resolveTxt('www.neg.test'))).toBe('ENODATA');
    // An empty non-terminal exists: NODATA, not NXDOMAIN.
    expect(await failure(r.resolve4('branch.neg.test'))).toBe('ENODATA');
    expect(await r.resolve4('anything.wild.neg.test')).toEqual(['192.0.2.99']);

    const nx = await ask(dns.port, 'nothing.neg.test', 'A');
    expect(nx.rcode).toBe('NXDOMAIN');
    expect(nx.flag_aa).toBe(true);
    expect(nx.answers).toEqual([]);
    expect(nx.authorities?.map((a) => [a.type, a.name])).toEqual([['SOA', 'neg.test']]);
    const nodata = await ask(dns.port, 'www.neg.test', 'MX');
    expect(nodata.rcode).toBe('NOERROR');
    expect(nodata.flag_aa).toBe(true);
    expect(nodata.answers).toEqual([]);
    expect(nodata.authorities?.map((a) => a.type)).toEqual(['SOA']);
    // Negative answers are cached for the SOA's minimum at most (RFC 2308).
    expect((nodata.authorities?.[0] as { ttl?: number } | undefined)?.ttl).toBe(86400);
    const elsewhere = await ask(dns.port, 'example.com', 'A');
    expect(elsewhere.rcode).toBe('REFUSED');
    expect(elsewhere.flag_aa).toBe(false);
  });

  it('dns: a delegation answers a referral, not authoritatively', async () => {
    const d = await domain(t, 'parent.test');
    await record(t, d.id, { type: 'NS', name: 'child', target: 'ns.child.parent.test' });
    await record(t, d.id, { type: 'A', name: 'ns.child', target: '192.0.2.53' });
    const ref = await ask(dns.port, 'www.child.parent.test', 'A');
    expect(ref.rcode).toBe('NOERROR');
    expect(ref.flag_aa).toBe(false);
    expect(ref.answers).toEqual([]);
    expect(ref.authorities?.map((a) => [a.type, a.name, 'data' in a ? a.data : null])).toEqual([
      ['NS', 'child.parent.test', 'ns.child.parent.test'],
    ]);
    expect(ref.additionals?.map((a) => ('data' in a ? a.data : null))).toEqual(['192.0.2.53']);
  });

  it('dns: a change through the API is answered by the next question; a deleted record stops answering', async () => {
    const d = await domain(t, 'live.test');
    const r = resolver(dns.port);
    expect(await failure(r.resolve4('app.live.test'))).toBe('ENOTFOUND');
    const serial0 = (await r.resolveSoa('live.test')).serial;
    const rec = await record(t, d.id, { type: 'A', name: 'app', target: '192.0.2.1' });
    expect(await r.resolve4('app.live.test')).toEqual(['192.0.2.1']);
    await t.put(`/v4/domains/${d.id}/records/${rec.id}`, { target: '192.0.2.2' });
    expect(await r.resolve4('app.live.test')).toEqual(['192.0.2.2']);
    const serial1 = (await r.resolveSoa('live.test')).serial;
    expect(serial1).toBeGreaterThan(serial0);
    expect((await t.del(`/v4/domains/${d.id}/records/${rec.id}`)).status).toBe(200);
    expect(await failure(r.resolve4('app.live.test'))).toBe('ENOTFOUND');
    // A disabled zone is not served; enabled again, it is.
    await t.put(`/v4/domains/${d.id}`, { status: 'disabled' });
    expect((await ask(dns.port, 'live.test', 'SOA')).rcode).toBe('REFUSED');
    await t.put(`/v4/domains/${d.id}`, { status: 'active', ttl_sec: 300 });
    expect((await r.resolveSoa('live.test')).minttl).toBe(300);
    await t.del(`/v4/domains/${d.id}`);
    expect((await ask(dns.port, 'live.test', 'SOA')).rcode).toBe('REFUSED');
  });

  it('dns: zone transfers (AXFR) go to the axfr_ips only, over TCP', async () => {
    const d = await domain(t, 'xfr.test');
    await record(t, d.id, { type: 'A', name: 'www', target: '192.0.2.10' });
    await record(t, d.id, { type: 'TXT', name: 'www', target: 'hello' });
    expect((await transfer(dns.port, 'xfr.test')).rcode).toBe('REFUSED');
    await t.put(`/v4/domains/${d.id}`, { axfr_ips: ['127.0.0.1'] });
    const x = await transfer(dns.port, 'xfr.test');
    expect(x.rcode).toBe('NOERROR');
    const types = x.answers.map((a) => a.type);
    expect(types[0]).toBe('SOA');
    expect(types[types.length - 1]).toBe('SOA');
    expect(types.filter((ty) => ty === 'NS')).toHaveLength(5);
    expect(x.answers.filter((a) => a.type === 'A' || a.type === 'TXT')).toHaveLength(2);
    // Over UDP a transfer is refused.
    expect((await ask(dns.port, 'xfr.test', 'AXFR')).rcode).toBe('REFUSED');
  });

  it('dns: an answer too large for UDP is truncated, and the resolver gets it over TCP', async () => {
    const d = await domain(t, 'big.test');
    for (let i = 0; i < 12; i++)
      await record(t, d.id, { type: 'TXT', name: 'many', target: `${i}-${'y'.repeat(60)}` });
    const udp = await ask(dns.port, 'many.big.test', 'TXT');
    expect(udp.flag_tc).toBe(true);
    expect(udp.answers).toEqual([]);
    expect(await resolver(dns.port).resolveTxt('many.big.test')).toHaveLength(12);
  });
});
