import dgram from 'node:dgram';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsListener } from '../../../src/modules/domains/dns/server.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance } from '../networking/fixtures.js';
import { ask, domain, failure, fields, record, resolver } from './fixtures.js';

/** A port free for both UDP and TCP on 127.0.0.1 (for a server whose address a setting names). */
async function freePort(): Promise<number> {
  for (;;) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    const port = udp.address().port;
    const tcp = net.createServer();
    const ok = await new Promise<boolean>((r) => {
      tcp.once('error', () => r(false));
      tcp.listen(port, '127.0.0.1', () => r(true));
    });
    await new Promise<void>((r) => udp.close(() => r()));
    if (ok) await new Promise<void>((r) => tcp.close(() => r()));
    if (ok) return port;
  }
}

describe('zone transfers between servers', () => {
  const apps: TestApp[] = [];
  const listeners: DnsListener[] = [];
  afterEach(async () => {
    for (const l of listeners.splice(0)) await l.close();
    for (const a of apps.splice(0)) await a.close();
  });

  /** A Stratus whose DNS server is the master of `zone` (transfers allowed to 127.0.0.1). */
  async function master(zone: string) {
    const m = await buildTestApp();
    apps.push(m);
    const l = await m.ctx.areas.domains.dns.listen('127.0.0.1', 0);
    listeners.push(l);
    const d = await domain(m, zone, { axfr_ips: ['127.0.0.1'], refresh_sec: 300 });
    return { m, port: l.port, d };
  }

  /** A second Stratus (its own database) that reaches masters at `port`, with its DNS server. */
  async function second(port: number) {
    const s = await buildTestApp({ env: { STRATUS_DNS_TRANSFER_PORT: String(port) } });
    apps.push(s);
    const l = await s.ctx.areas.domains.dns.listen('127.0.0.1', 0);
    listeners.push(l);
    return { s, port: l.port };
  }

  it('slave zones: transferred from master_ips and served; the copy follows its master', async () => {
    const { m, port: masterPort, d } = await master('follow.test');
    const rec = await record(m, d.id, { type: 'A', name: 'www', target: '192.0.2.1' });
    const { s, port } = await second(masterPort);
    const slave = await s.post('/v4/domains', {
      domain: 'follow.test',
      type: 'slave',
      master_ips: ['127.0.0.1'],
    });
    expect(slave.status, JSON.stringify(slave.body)).toBe(200);
    expect(slave.body).toMatchObject({ type: 'slave', soa_email: '', master_ips: ['127.0.0.1'] });
    // Before the first transfer the zone has no data: SERVFAIL.
    expect((await ask(port, 'follow.test', 'SOA')).rcode).toBe('SERVFAIL');
    await s.runDue();
    const r = resolver(port);
    expect(await r.resolve4('www.follow.test')).toEqual(['192.0.2.1']);
    const served = await ask(port, 'www.follow.test', 'A');
    expect(served.flag_aa).toBe(true);
    expect((await s.get(`/v4/domains/${slave.body.id}`)).body.errors).toBe('');
    expect((await s.get(`/v4/domains/${slave.body.id}/zone-file`)).body.zone_file).toContain(
      'www    A  192.0.2.1',
    );
    // Records of a slave zone are its master's business.
    const add = await s.post(`/v4/domains/${slave.body.id}/records`, {
      type: 'A',
      target: '192.0.2.9',
    });
    expect(add.status).toBe(400);
    expect(add.body.errors[0].reason).toMatch(/master type/);

    // The master changes: after the SOA's refresh interval (300 s) the slave has the change.
    await m.put(`/v4/domains/${d.id}/records/${rec.id}`, { target: '192.0.2.2' });
    await record(m, d.id, { type: 'TXT', name: 'www', target: 'new' });
    await s.runDue();
    expect(await r.resolve4('www.follow.test')).toEqual(['192.0.2.1']);
    s.clock.advance(300_000);
    await s.runDue();
    expect(await r.resolve4('www.follow.test')).toEqual(['192.0.2.2']);
    expect(await r.resolveTxt('www.follow.test')).toEqual([['new']]);
    // A deleted record stops answering on the slave too.
    await m.del(`/v4/domains/${d.id}/records/${rec.id}`);
    s.clock.advance(300_000);
    await s.runDue();
    expect(await failure(r.resolve4('www.follow.test'))).toBe('ENODATA');
  });

  it('slave zones: a NOTIFY from a master starts a check at once; a refusing master is an error', async () => {
    const { m, port: masterPort, d } = await master('notify.test');
    const { s, port } = await second(masterPort);
    const slave = await s.post('/v4/domains', {
      domain: 'notify.test',
      type: 'slave',
      master_ips: ['127.0.0.1'],
    });
    await s.runDue();
    await record(m, d.id, { type: 'A', name: 'n', target: '192.0.2.7' });
    const ack = await ask(port, 'notify.test', 'SOA', 4);
    expect(ack.rcode).toBe('NOERROR');
    expect(ack.flag_aa).toBe(true);
    await s.runDue();
    expect(await resolver(port).resolve4('n.notify.test')).toEqual(['192.0.2.7']);
    // A NOTIFY for a zone this server is not a slave of is refused.
    expect((await ask(masterPort, 'notify.test', 'SOA', 4)).rcode).toBe('REFUSED');

    // The master stops allowing transfers to us: the error shows on the domain.
    await m.put(`/v4/domains/${d.id}`, { axfr_ips: [] });
    await record(m, d.id, { type: 'A', name: 'm', target: '192.0.2.8' });
    s.clock.advance(300_000);
    await s.runDue();
    const view = await s.get(`/v4/domains/${slave.body.id}`);
    expect(view.body.errors).toMatch(/refused the transfer/);
    // The copy is still served until it expires.
    expect(await resolver(port).resolve4('n.notify.test')).toEqual(['192.0.2.7']);
  });

  it('importDomain: transfers the zone from the remote name server into a master domain', async () => {
    const { m, port: masterPort, d } = await master('import.test');
    await m.put(`/v4/domains/${d.id}`, { soa_email: 'dns.admin@import.test', ttl_sec: 300 });
    await record(m, d.id, { type: 'A', name: 'www', target: '192.0.2.1', ttl_sec: 3600 });
    await record(m, d.id, { type: 'MX', target: 'mail.import.test', priority: 5 });
    await record(m, d.id, {
      type: 'SRV',
      service: 'xmpp',
      protocol: 'tcp',
      priority: 1,
      weight: 2,
      port: 5222,
      target: 'www',
    });
    await record(m, d.id, { type: 'CAA', tag: 'issue', target: 'ca.example' });
    const { s } = await second(masterPort);
    const imp = await s.post('/v4/domains/import', {
      domain: 'import.test',
      remote_nameserver: '127.0.0.1',
    });
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect(imp.body).toMatchObject({
      domain: 'import.test',
      type: 'master',
      soa_email: 'dns.admin@import.test',
      ttl_sec: 300,
    });
    const recs = (await s.get(`/v4/domains/${imp.body.id}/records`)).body.data as Record<
      string,
      unknown
    >[];
    expect(
      recs.map((r) => [r.type, r.name, r.target, r.ttl_sec, r.priority, r.service, r.tag]),
    ).toEqual(
      expect.arrayContaining([
        ['A', 'www', '192.0.2.1', 3600, 0, null, null],
        ['MX', '', 'mail.import.test', 300, 5, null, null],
        ['SRV', '_xmpp._tcp', 'www.import.test', 300, 1, 'xmpp', null],
        ['CAA', '', 'ca.example', 300, 0, null, 'issue'],
      ]),
    );
    expect(recs).toHaveLength(4);
    const events = (await s.get('/v4/account/events')).body.data;
    expect(events[0]).toMatchObject({ action: 'dns_zone_import', entity: { id: imp.body.id } });
  });

  it('importDomain: a server that refuses, or an address transfers may not use, is a 400 naming remote_nameserver', async () => {
    const { m, port: masterPort, d } = await master('refuse.test');
    await m.put(`/v4/domains/${d.id}`, { axfr_ips: [] });
    const { s } = await second(masterPort);
    const refused = await s.post('/v4/domains/import', {
      domain: 'refuse.test',
      remote_nameserver: '127.0.0.1',
    });
    expect(refused.status).toBe(400);
    expect(fields(refused)).toEqual(['remote_nameserver']);
    const outside = await s.post('/v4/domains/import', {
      domain: 'refuse.test',
      remote_nameserver: '192.0.2.53',
    });
    expect(outside.status).toBe(400);
    expect(outside.body.errors[0].reason).toMatch(/not an address transfers may use/);
    const bad = await s.post('/v4/domains/import', {
      domain: 'refuse.test',
      remote_nameserver: 'x',
    });
    expect(fields(bad)).toEqual(['remote_nameserver']);
    expect((await s.get('/v4/domains')).body.results).toBe(0);
  });

  it('updateIP: the reverse DNS check can ask the DNS server of Stratus itself', async () => {
    const port = await freePort();
    const t = await buildTestApp({ rdnsResolver: `127.0.0.1:${port}` });
    apps.push(t);
    listeners.push(await t.ctx.areas.domains.dns.listen('127.0.0.1', port));
    const inst = await instance(t);
    const ip = inst.ipv4[0] as string;
    const d = await domain(t, 'rdns.test');
    const missing = await t.put(`/v4/networking/ips/${ip}`, { rdns: 'web.rdns.test' });
    expect(missing.status).toBe(400);
    expect(fields(missing)).toEqual(['rdns']);
    await record(t, d.id, { type: 'A', name: 'web', target: ip });
    const ok = await t.put(`/v4/networking/ips/${ip}`, { rdns: 'web.rdns.test' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.rdns).toBe('web.rdns.test');
  });
});
