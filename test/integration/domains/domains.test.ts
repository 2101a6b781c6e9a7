import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { domain, fields, record } from './fixtures.js';

describe('domains', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createDomain: answers the recorded shape, with nulls accepted for unset fields', async () => {
    const r = await t.post('/v4/domains', {
      domain: 'example.org',
      type: 'master',
      soa_email: 'admin@example.org',
      master_ips: null,
      axfr_ips: null,
      tags: null,
      description: null,
      group: null,
      status: null,
      ttl_sec: null,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      id: expect.any(Number),
      type: 'master',
      domain: 'example.org',
      tags: [],
      group: '',
      status: 'active',
      errors: '',
      description: '',
      soa_email: 'admin@example.org',
      retry_sec: 0,
      master_ips: [],
      axfr_ips: [],
      expire_sec: 0,
      refresh_sec: 0,
      ttl_sec: 0,
      created: '2026-03-01T12:00:00',
      updated: '2026-03-01T12:00:00',
    });
    expect((await t.get(`/v4/domains/${r.body.id}`)).body).toEqual(r.body);
    const list = await t.get('/v4/domains');
    expect(list.body).toMatchObject({ page: 1, pages: 1, results: 1, data: [r.body] });
  });

  it('createDomain: rounds the timers up to valid values (0 stays 0)', async () => {
    const d = await domain(t, 'timers.example', {
      ttl_sec: 299,
      refresh_sec: 600,
      retry_sec: 3601,
      expire_sec: 2419201,
    });
    expect(d).toMatchObject({
      ttl_sec: 300,
      refresh_sec: 3600,
      retry_sec: 7200,
      expire_sec: 2419200,
    });
    const u = await t.put(`/v4/domains/${d.id}`, { ttl_sec: 0, refresh_sec: 31 });
    expect(u.body).toMatchObject({ ttl_sec: 0, refresh_sec: 120, retry_sec: 7200 });
  });

  it('createDomain: refuses a bad name, a master without soa_email, a slave without master_ips, bad addresses', async () => {
    const bad = await t.post('/v4/domains', {
      domain: 'not a domain',
      type: 'master',
      soa_email: 'a@b.co',
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['domain']);
    const noEmail = await t.post('/v4/domains', { domain: 'a.example', type: 'master' });
    expect(noEmail.status).toBe(400);
    expect(fields(noEmail)).toEqual(['soa_email']);
    const badEmail = await t.post('/v4/domains', {
      domain: 'a.example',
      type: 'master',
      soa_email: 'x',
    });
    expect(fields(badEmail)).toEqual(['soa_email']);
    const slave = await t.post('/v4/domains', {
      domain: 'a.example',
      type: 'slave',
      master_ips: [],
    });
    expect(slave.status).toBe(400);
    expect(fields(slave)).toEqual(['master_ips']);
    const ips = await t.post('/v4/domains', {
      domain: 'a.example',
      type: 'slave',
      master_ips: ['192.0.2.1', 'nope'],
      axfr_ips: ['300.1.1.1'],
    });
    expect(fields(ips).sort()).toEqual(['axfr_ips.0', 'master_ips.1']);
    const noType = await t.post('/v4/domains', { domain: 'a.example' });
    expect(fields(noType)).toEqual(['type']);
    expect((await t.get('/v4/domains')).body.results).toBe(0);
  });

  it('createDomain: a name is unique across every account, whatever its case', async () => {
    await domain(t, 'taken.example');
    const again = await t.post('/v4/domains', {
      domain: 'TAKEN.example.',
      type: 'master',
      soa_email: 'a@b.co',
    });
    expect(again.status).toBe(400);
    expect(fields(again)).toEqual(['domain']);
    const second = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'second@example.org',
      username: 'second',
    });
    const r = await t.post(
      '/v4/domains',
      { domain: 'taken.example', type: 'master', soa_email: 'a@b.co' },
      { token: second.token },
    );
    expect(r.status).toBe(400);
    expect(fields(r)).toEqual(['domain']);
  });

  it('updateDomain: changes settings, keeps what is not given, and checks the resulting zone', async () => {
    const d = await domain(t, 'update.example', { description: 'first', tags: ['alpha'] });
    const u = await t.put(`/v4/domains/${d.id}`, {
      domain: 'renamed.example',
      description: 'second',
      axfr_ips: ['127.0.0.1'],
      master_ips: null,
      tags: null,
    });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    expect(u.body).toMatchObject({
      domain: 'renamed.example',
      description: 'second',
      soa_email: 'admin@update.example',
      axfr_ips: ['127.0.0.1'],
      tags: ['alpha'],
    });
    const slave = await t.put(`/v4/domains/${d.id}`, { type: 'slave' });
    expect(slave.status).toBe(400);
    expect(fields(slave)).toEqual(['master_ips']);
    const off = await t.put(`/v4/domains/${d.id}`, { status: 'disabled' });
    expect(off.body.status).toBe('disabled');
    expect((await t.put(`/v4/domains/${d.id}`, { status: 'edit_mode' })).status).toBe(400);
  });

  it('deleteDomain: removes the domain and its records', async () => {
    const d = await domain(t, 'gone.example');
    const rec = await record(t, d.id, { type: 'A', name: 'www', target: '192.0.2.10' });
    expect((await t.del(`/v4/domains/${d.id}`)).body).toEqual({});
    expect((await t.get(`/v4/domains/${d.id}`)).status).toBe(404);
    expect((await t.get(`/v4/domains/${d.id}/records/${rec.id}`)).status).toBe(404);
    // The name is free again.
    await domain(t, 'gone.example');
  });

  it('cloneDomain: a new domain with the same settings and a copy of every record', async () => {
    const d = await domain(t, 'source.example', { ttl_sec: 300, description: 'src' });
    await record(t, d.id, { type: 'A', name: 'www', target: '192.0.2.10' });
    await record(t, d.id, { type: 'MX', target: 'mail', priority: 10 });
    const c = await t.post(`/v4/domains/${d.id}/clone`, { domain: 'copy.example' });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ domain: 'copy.example', ttl_sec: 300, description: 'src' });
    const recs = (await t.get(`/v4/domains/${c.body.id}/records`)).body.data;
    expect(recs.map((r: { type: string; target: string }) => [r.type, r.target])).toEqual([
      ['A', '192.0.2.10'],
      ['MX', 'mail.source.example'],
    ]);
    const taken = await t.post(`/v4/domains/${d.id}/clone`, { domain: 'source.example' });
    expect(taken.status).toBe(400);
    expect(fields(taken)).toEqual(['domain']);
  });

  it('getDomainZone: the zone file of what is served, in the reference layout', async () => {
    const d = await domain(t, 'zone.example', { ttl_sec: 300 });
    await record(t, d.id, { type: 'A', name: 'www', target: '192.0.2.10', ttl_sec: 3600 });
    await record(t, d.id, { type: 'TXT', name: '', target: 'v=spf1 -all' });
    const z = await t.get(`/v4/domains/${d.id}/zone-file`);
    expect(z.status).toBe(200);
    const lines = z.body.zone_file as string[];
    expect(lines[0]).toBe(`; zone.example [${d.id}]`);
    expect(lines[1]).toBe('$TTL 300');
    expect(lines[2]).toMatch(
      /^@ {2}IN {2}SOA {2}ns1\.compute\.com\. admin\.zone\.example\. 20260301\d\d 14400 14400 1209600 300$/,
    );
    expect(lines).toContain('@    NS  ns1.compute.com.');
    expect(lines).toContain('@    NS  ns5.compute.com.');
    expect(lines).toContain('www 3600    A  192.0.2.10');
    expect(lines).toContain('@    TXT  "v=spf1 -all"');
  });

  it('events: zone and record changes are dns_zone_* and dns_record_* about the domain', async () => {
    const d = await domain(t, 'events.example');
    const rec = await record(t, d.id, { type: 'A', name: 'a', target: '192.0.2.1' });
    await t.put(`/v4/domains/${d.id}/records/${rec.id}`, { target: '192.0.2.2' });
    await t.del(`/v4/domains/${d.id}/records/${rec.id}`);
    await t.put(`/v4/domains/${d.id}`, { description: 'x' });
    await t.post(`/v4/domains/${d.id}/clone`, { domain: 'events2.example' });
    await t.del(`/v4/domains/${d.id}`);
    const events = (await t.get('/v4/account/events')).body.data as {
      action: string;
      status: string;
      entity: { type: string; id: number; label: string; url: string };
    }[];
    const mine = events.filter((e) => e.entity?.type === 'domain').reverse();
    expect(mine.map((e) => e.action)).toEqual([
      'dns_zone_create',
      'dns_record_create',
      'dns_record_update',
      'dns_record_delete',
      'dns_zone_update',
      'dns_zone_create',
      'dns_zone_delete',
    ]);
    expect(mine[0]?.entity).toEqual({
      type: 'domain',
      id: d.id,
      label: 'events.example',
      url: `/v4/domains/${d.id}`,
    });
    expect(mine.every((e) => e.status === 'notification')).toBe(true);
  });

  it('grants: a restricted user needs add_domains to create, and sees only granted domains', async () => {
    const d = await domain(t, 'granted.example');
    await domain(t, 'hidden.example');
    const u = await createTestUser(t, { restricted: true });
    const body = { domain: 'mine.example', type: 'master', soa_email: 'a@b.co' };
    expect((await t.post('/v4/domains', body, { token: u.token })).status).toBe(403);
    expect((await t.get('/v4/domains', { token: u.token })).body.results).toBe(0);
    expect((await t.get(`/v4/domains/${d.id}`, { token: u.token })).status).toBe(404);
    const grants = await t.put(`/v4/account/users/${u.username}/grants`, {
      global: { add_domains: true },
      domain: [{ id: d.id, permissions: 'read_only' }],
    });
    expect(grants.status, JSON.stringify(grants.body)).toBe(200);
    expect(grants.body.domain).toEqual(
      expect.arrayContaining([{ id: d.id, label: 'granted.example', permissions: 'read_only' }]),
    );
    const list = await t.get('/v4/domains', { token: u.token });
    expect(list.body.data.map((x: { id: number }) => x.id)).toEqual([d.id]);
    expect(
      (await t.put(`/v4/domains/${d.id}`, { description: 'no' }, { token: u.token })).status,
    ).toBe(403);
    expect(
      (
        await t.post(
          `/v4/domains/${d.id}/records`,
          { type: 'A', target: '192.0.2.1' },
          { token: u.token },
        )
      ).status,
    ).toBe(403);
    const mine = await t.post('/v4/domains', body, { token: u.token });
    expect(mine.status).toBe(200);
    // The creator gets read_write on what it created.
    expect(
      (await t.put(`/v4/domains/${mine.body.id}`, { description: 'ok' }, { token: u.token }))
        .status,
    ).toBe(200);
  });

  it('tags: domains are taggable, and listed by their tag', async () => {
    const d = await domain(t, 'tagged.example', { tags: ['web'] });
    const tag = await t.get('/v4/tags/web');
    expect(tag.status).toBe(200);
    expect(tag.body.data).toEqual([
      { type: 'domain', data: expect.objectContaining({ id: d.id }) },
    ]);
    const other = await domain(t, 'other.example');
    expect((await t.post('/v4/tags', { label: 'dns', domains: [other.id] })).status).toBe(200);
    expect((await t.get(`/v4/domains/${other.id}`)).body.tags).toEqual(['dns']);
    const filtered = await t.get('/v4/domains', { filter: { tags: 'dns' } });
    expect(filtered.body.data.map((x: { id: number }) => x.id)).toEqual([other.id]);
  });

  it('getDomains: filters on domain and pages', async () => {
    await domain(t, 'a.example');
    await domain(t, 'b.example');
    const f = await t.get('/v4/domains', { filter: { domain: 'b.example' } });
    expect(f.body.data.map((x: { domain: string }) => x.domain)).toEqual(['b.example']);
    const bad = await t.get('/v4/domains', { filter: { soa_email: 'x' } });
    expect(bad.status).toBe(400);
  });
});
