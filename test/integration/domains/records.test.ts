import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { domain, fields, record } from './fixtures.js';

describe('domain records', () => {
  let t: TestApp;
  let d: { id: number };
  beforeAll(async () => {
    t = await buildTestApp();
    d = await domain(t, 'records.example');
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (body: Record<string, unknown>) => t.post(`/v4/domains/${d.id}/records`, body);

  it('createDomainRecord: answers the recorded shape (defaults 0 and null)', async () => {
    const r = await post({ type: 'A', name: 'a', target: '127.0.0.1' });
    expect(r.body).toEqual({
      id: expect.any(Number),
      type: 'A',
      name: 'a',
      target: '127.0.0.1',
      priority: 0,
      weight: 0,
      port: 0,
      service: null,
      protocol: null,
      ttl_sec: 0,
      tag: null,
      created: '2026-03-01T12:00:00',
      updated: '2026-03-01T12:00:00',
    });
    expect((await t.get(`/v4/domains/${d.id}/records/${r.body.id}`)).body).toEqual(r.body);
  });

  it('createDomainRecord: a name given in full loses the zone; the apex is ""; TTLs round up', async () => {
    const full = await record(t, d.id, {
      type: 'A',
      name: 'host.records.example.',
      target: '192.0.2.1',
      ttl_sec: 299,
    });
    expect(full).toMatchObject({ name: 'host', ttl_sec: 300 });
    const apex = await record(t, d.id, { type: 'AAAA', name: null, target: '2001:db8::1' });
    expect(apex.name).toBe('');
  });

  it('createDomainRecord: A takes [remote_addr]; A and AAAA need an address of their family', async () => {
    const mine = await record(t, d.id, { type: 'A', name: 'me', target: '[remote_addr]' });
    expect(mine.target).toBe('127.0.0.1');
    for (const [type, target] of [
      ['A', '2001:db8::1'],
      ['AAAA', '192.0.2.1'],
      ['A', ''],
    ]) {
      const r = await post({ type, name: 'x', target });
      expect(r.status, `${type} ${target}`).toBe(400);
      expect(fields(r)).toEqual(['target']);
    }
  });

  it('createDomainRecord: CNAME needs a name that holds nothing else ("Record conflict - CNAMES must be unique")', async () => {
    const c = await record(t, d.id, { type: 'CNAME', name: 'alias', target: 'www' });
    expect(c.target).toBe('www.records.example');
    const again = await post({ type: 'CNAME', name: 'alias', target: 'other.example.com.' });
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([
      { field: 'name', reason: 'Record conflict - CNAMES must be unique' },
    ]);
    expect((await post({ type: 'TXT', name: 'alias', target: 'x' })).status).toBe(400);
    await record(t, d.id, { type: 'A', name: 'taken', target: '192.0.2.1' });
    expect((await post({ type: 'CNAME', name: 'taken', target: 'x.example.com' })).status).toBe(
      400,
    );
    expect(fields(await post({ type: 'CNAME', target: 'x.example.com' }))).toEqual(['name']);
  });

  it('createDomainRecord: MX defaults priority 0; a Null MX stands alone', async () => {
    const z = await domain(t, 'mx.example');
    const mx = await record(t, z.id, { type: 'MX', target: 'mail.other.example.' });
    expect(mx).toMatchObject({ priority: 0, target: 'mail.other.example', name: '' });
    const nullMx = await t.post(`/v4/domains/${z.id}/records`, {
      type: 'MX',
      name: '',
      target: '',
    });
    expect(nullMx.status).toBe(400);
    await t.del(`/v4/domains/${z.id}/records/${mx.id}`);
    await record(t, z.id, { type: 'MX', name: '', target: '' });
    const more = await t.post(`/v4/domains/${z.id}/records`, { type: 'MX', target: 'mail' });
    expect(more.status).toBe(400);
    expect(more.body.errors[0].reason).toMatch(/Null MX/);
  });

  it('createDomainRecord: SRV needs service, priority, weight, port and target; its name is _service._protocol', async () => {
    const missing = await post({ type: 'SRV', target: 'www' });
    expect(fields(missing).sort()).toEqual(['port', 'priority', 'service', 'weight']);
    const srv = await record(t, d.id, {
      type: 'SRV',
      service: '_sip',
      protocol: 'udp',
      priority: 10,
      weight: 0,
      port: 5060,
      target: 'sipserver',
    });
    expect(srv).toMatchObject({
      name: '_sip._udp',
      service: 'sip',
      protocol: 'udp',
      target: 'sipserver.records.example',
    });
    const external = await record(t, d.id, {
      type: 'SRV',
      service: 'xmpp',
      priority: 1,
      weight: 1,
      port: 5222,
      target: 'chat.example.com',
    });
    expect(external).toMatchObject({
      name: '_xmpp._tcp',
      protocol: 'tcp',
      target: 'chat.example.com',
    });
    // An underscore inside the service is a DNS label character (the SDKs' suites create one).
    const underscored = await record(t, d.id, {
      type: 'SRV',
      service: 'service_test',
      priority: 10,
      weight: 5,
      port: 80,
      target: 'rc_test',
    });
    expect(underscored).toMatchObject({ name: '_service_test._tcp', service: 'service_test' });
    const bad = await post({
      type: 'SRV',
      service: 'no.dots',
      priority: 1,
      weight: 1,
      port: 1,
      target: 'www',
    });
    expect(fields(bad)).toEqual(['service']);
  });

  it('createDomainRecord: CAA checks its value by tag; NS refuses a wildcard; TXT and PTR need a target', async () => {
    await record(t, d.id, {
      type: 'CAA',
      tag: 'issue',
      target: 'letsencrypt.org; validationmethods=dns-01',
    });
    await record(t, d.id, { type: 'CAA', tag: 'iodef', target: 'mailto:security@records.example' });
    expect(fields(await post({ type: 'CAA', target: 'letsencrypt.org' }))).toEqual(['tag']);
    expect(fields(await post({ type: 'CAA', tag: 'issuewild', target: '*.ca.example' }))).toEqual([
      'target',
    ]);
    expect(fields(await post({ type: 'CAA', tag: 'iodef', target: 'mailto:nobody' }))).toEqual([
      'target',
    ]);
    expect(fields(await post({ type: 'CAA', tag: 'nope', target: 'x.example' }))).toEqual(['tag']);
    expect(fields(await post({ type: 'NS', name: '*', target: 'ns1.example.com' }))).toEqual([
      'name',
    ]);
    expect(fields(await post({ type: 'TXT', name: 't' }))).toEqual(['target']);
    expect(fields(await post({ type: 'PTR', name: '1' }))).toEqual(['target']);
    expect(fields(await post({ type: 'A', name: 'bad name', target: '192.0.2.1' }))).toEqual([
      'name',
    ]);
    expect(fields(await post({ type: 'SOA', target: 'x' }))).toEqual(['type']);
  });

  it('updateDomainRecord: the given fields over the stored ones, through the same rules; the type stays', async () => {
    const r = await record(t, d.id, { type: 'A', name: 'upd', target: '192.0.2.1', ttl_sec: 300 });
    const u = await t.put(`/v4/domains/${d.id}/records/${r.id}`, {
      name: 'renamed',
      target: null,
      service: null,
      ttl_sec: 7000,
    });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    expect(u.body).toMatchObject({
      type: 'A',
      name: 'renamed',
      target: '192.0.2.1',
      ttl_sec: 7200,
    });
    const bad = await t.put(`/v4/domains/${d.id}/records/${r.id}`, { target: 'not-an-ip' });
    expect(fields(bad)).toEqual(['target']);
    expect((await t.get(`/v4/domains/${d.id}/records/${r.id}`)).body.target).toBe('192.0.2.1');
    expect((await t.put(`/v4/domains/${d.id}/records/999999`, { name: 'x' })).status).toBe(404);
  });

  it('getDomainRecords: filters on type and name; records of another domain are not found', async () => {
    const list = await t.get(`/v4/domains/${d.id}/records`, { filter: { type: 'CAA' } });
    expect(list.body.data.every((x: { type: string }) => x.type === 'CAA')).toBe(true);
    expect(list.body.results).toBe(2);
    const other = await domain(t, 'elsewhere.example');
    const mine = list.body.data[0].id;
    expect((await t.get(`/v4/domains/${other.id}/records/${mine}`)).status).toBe(404);
    expect((await t.del(`/v4/domains/${other.id}/records/${mine}`)).status).toBe(404);
  });
});
